import { describe, expect, test } from "vitest";
import { pickProjectByRef, projectIdOfRef } from "./project-ref";

describe("Sentry's project_id_or_slug", () => {
  const projects = [
    { id: 3, slug: "web" },
    { id: 7, slug: "42" },
    { id: 42, slug: "api" },
  ];
  test("a slug names its project", () => {
    expect(pickProjectByRef(projects, "web")?.id).toBe(3);
  });
  test("all digits: the project with that id", () => {
    expect(pickProjectByRef(projects, "3")?.slug).toBe("web");
  });
  test("a slug that is all digits wins over an id", () => {
    expect(pickProjectByRef(projects, "42")?.id).toBe(7);
  });
  test("neither: nothing", () => {
    expect(pickProjectByRef(projects, "99")).toBeUndefined();
    expect(pickProjectByRef(projects, "nope")).toBeUndefined();
  });
  test("only plain positive integers are ids", () => {
    expect(projectIdOfRef("12")).toBe(12);
    for (const v of ["0", "-1", "1e3", "0x10", " 1", "1234567890123456"]) expect(projectIdOfRef(v)).toBeNull();
  });
});
