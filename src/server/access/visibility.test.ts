import { describe, expect, test } from "vitest";
import type { OrgSummary } from "../types";
import {
  requireAllProjectsVisible,
  requireSomeProjectVisible,
  seesAllProjects,
  seesSomeProject,
  visibleProjectIdsAmong,
} from "./visibility";

const org = (visibleProjectIds: number[] | null): OrgSummary => ({ id: 1, slug: "acme", name: "Acme", role: "member", visibleProjectIds });

describe("team visibility of objects that belong to projects", () => {
  test("acting needs every project, reading one of them; an object of no project is the organization's", () => {
    const member = org([1]);
    expect(seesAllProjects(member, [1])).toBe(true);
    expect(seesAllProjects(member, [1, 2])).toBe(false);
    expect(seesAllProjects(member, [])).toBe(true);
    expect(seesSomeProject(member, [1, 2])).toBe(true);
    expect(seesSomeProject(member, [2])).toBe(false);
    expect(seesSomeProject(member, [])).toBe(true);
    expect(visibleProjectIdsAmong(member, [2, 1])).toEqual([1]);
    // Admins and owners (no restriction) reach everything.
    expect(seesAllProjects(org(null), [1, 2, 3])).toBe(true);
  });

  test("what cannot be reached is not found, the same answer as for what does not exist", () => {
    expect(() => requireAllProjectsVisible(org([1]), [1, 2], "Release not found.")).toThrow(
      expect.objectContaining({ code: "not_found", message: "Release not found." }),
    );
    expect(() => requireSomeProjectVisible(org([]), [2], "Monitor not found.")).toThrow(expect.objectContaining({ code: "not_found" }));
    expect(() => requireAllProjectsVisible(org([1, 2]), [1, 2], "x")).not.toThrow();
  });
});
