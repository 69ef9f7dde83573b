import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ACTIONS, denial, PERMISSIONS, permits, permitsAll, roleTableMarkdown, scopesForRole } from "./permissions";

const cells = (table: string) =>
  table.split("\n").map((line) =>
    line
      .split("|")
      .map((c) => c.trim().replace(/^-+$/, "---"))
      .join("|"),
  );

describe("the permission table", () => {
  test("a personal token acts with its scopes and its creator's role, whichever is narrower", () => {
    const all = { kind: "user-token" as const, scopes: ["project:releases", "project:write", "event:write", "member:write"] };
    // The report: a viewer's token with project:releases created, edited and deleted releases.
    expect(permits("viewer", all, "release.write")).toBe(false);
    expect(permits("viewer", all, "feedback.create")).toBe(false);
    expect(permits("viewer", all, "member.invite")).toBe(false);
    expect(permits("viewer", all, "key.write")).toBe(false);
    expect(permits("member", all, "release.write")).toBe(true);
    expect(permits("member", all, "key.write")).toBe(false);
    expect(permits("member", all, "member.invite")).toBe(false);
    expect(permits("admin", all, "member.invite")).toBe(true);
    // …and the scopes narrow the role.
    expect(permits("owner", { kind: "user-token", scopes: ["event:read"] }, "release.write")).toBe(false);
    expect(denial("owner", { kind: "user-token", scopes: ["event:read"] }, "release.write")).toMatch(/project:releases/);
  });

  test("a browser session acts with the role; an organization token with its scopes, never as an owner", () => {
    expect(permits("member", { kind: "session" }, "release.write")).toBe(true);
    expect(permits("viewer", { kind: "session" }, "release.write")).toBe(false);
    const ci = { kind: "org-token" as const, scopes: ["project:releases", "org:read"] };
    expect(permits("viewer", ci, "release.write")).toBe(true);
    expect(permits("owner", ci, "event.read")).toBe(false);
    expect(permits("owner", { kind: "org-token", scopes: ["member:write"] }, "member.admin")).toBe(false);
    expect(permits("owner", { kind: "org-token", scopes: ["project:write"] }, "orgtoken.manage")).toBe(false);
  });

  test("the scopes a role may put on a token are exactly those it can use", () => {
    expect(scopesForRole("viewer")).toEqual(["org:read", "project:read", "event:read", "member:read"]);
    expect(scopesForRole("member")).toEqual(["org:read", "project:read", "project:releases", "event:read", "event:write", "member:read"]);
    expect(scopesForRole("admin")).toHaveLength(8);
    for (const a of ACTIONS) {
      const p = PERMISSIONS[a] as { sessionOnly?: boolean; scopes: readonly string[]; role: "viewer" | "member" | "admin" | "owner" };
      if (p.sessionOnly) continue;
      expect(scopesForRole(p.role), a).toContain(p.scopes[0]);
    }
  });

  test("the README's role table is the permission table", () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, "../../../README.md"), "utf8");
    const between = /<!-- role-table -->\n([\s\S]*?)\n<!-- \/role-table -->/.exec(readme)?.[1];
    expect(between, "README.md needs the role table between <!-- role-table --> and <!-- /role-table -->").toBeDefined();
    // Compared cell by cell: the formatter pads README tables.
    expect(
      cells(between ?? ""),
      `README.md's role table differs from src/server/access/permissions.ts; it should read:\n${roleTableMarkdown()}`,
    ).toEqual(cells(roleTableMarkdown()));
  });

  test("what a screen asks (permitsAll) is the table, action by action, for every role", () => {
    for (const role of ["viewer", "member", "admin", "owner"] as const) {
      const can = permitsAll(role, { kind: "session" });
      expect(Object.keys(can).sort()).toEqual([...ACTIONS].sort());
      for (const a of ACTIONS) expect(can[a]).toBe(permits(role, { kind: "session" }, a));
    }
    expect(permitsAll("member", { kind: "session" })["issue.update"]).toBe(true);
    expect(permitsAll("member", { kind: "session" })["monitor.write"]).toBe(false);
    expect(permitsAll("viewer", { kind: "session" })["issue.update"]).toBe(false);
  });
});
