import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { expandScopes, TOKEN_SCOPES } from "../../core/token-scopes";
import { ACTIONS, denial, PERMISSIONS, permits, permitsAll, roleTableMarkdown, scopesForRole, tokenAbilities } from "./permissions";

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

  test("a browser session acts with the role; an organization token is CI's (org:ci) and never beyond its creator's role", () => {
    expect(permits("member", { kind: "session" }, "release.write")).toBe(true);
    expect(permits("viewer", { kind: "session" }, "release.write")).toBe(false);
    const ci = { kind: "org-token" as const, scopes: ["org:ci"] };
    expect(permits("admin", ci, "release.write")).toBe(true);
    expect(permits("admin", ci, "artifact.upload")).toBe(true);
    expect(permits("admin", ci, "release.read")).toBe(true);
    // Sentry's org:ci deletes nothing, and touches no member, key, project or setting.
    for (const a of [
      "release.delete",
      "event.read",
      "issue.delete",
      "key.write",
      "member.invite",
      "project.write",
      "member.admin",
    ] as const)
      expect(permits("owner", ci, a), a).toBe(false);
    // The case: the creator demoted to viewer, the token reads and writes nothing more than a viewer.
    expect(permits("viewer", ci, "release.write")).toBe(false);
    expect(permits("viewer", ci, "release.read")).toBe(true);
    expect(denial("viewer", ci, "release.write")).toMatch(/made by a viewer/);
    // A token stored with every scope (before migration 0043) gains nothing from them.
    const legacy = { kind: "org-token" as const, scopes: ["member:write", "project:write", "event:write"] };
    expect(permits("owner", legacy, "key.write")).toBe(false);
    expect(permits("owner", legacy, "release.write")).toBe(false);
    expect(permits("owner", { kind: "org-token", scopes: ["org:ci"] }, "orgtoken.manage")).toBe(false);
  });

  test("what each token can do is said in the table's words", () => {
    expect(tokenAbilities("admin", { kind: "org-token", scopes: ["org:ci"] })).toEqual([
      "see the organization, its projects, teams and stats",
      "read releases, commits and deploys",
      "create and edit releases and record deploys",
      "upload source maps and release files",
    ]);
    expect(tokenAbilities(null, { kind: "org-token", scopes: ["org:ci"] })).toEqual([]);
    expect(tokenAbilities("viewer", { kind: "user-token", scopes: ["event:read", "event:write"] })).toEqual([
      "read issues, events, attachments, comments and feedback",
    ]);
  });

  test("the scopes a role may put on a token: every write it can use, reads for all, nothing that carries more", () => {
    expect(scopesForRole("viewer")).toEqual(["org:read", "project:read", "event:read", "member:read", "team:read", "alerts:read"]);
    expect(scopesForRole("member")).toEqual([
      "org:read",
      "project:read",
      "project:releases",
      "event:read",
      "event:write",
      "member:read",
      "org:ci",
      "team:read",
      "alerts:read",
    ]);
    expect(scopesForRole("owner")).toEqual([...TOKEN_SCOPES]);
    for (const role of ["viewer", "member", "admin", "owner"] as const) {
      const allowed = scopesForRole(role);
      // What a scope carries (Sentry's hierarchy) is allowed with it.
      for (const s of allowed) expect(allowed, `${role}: ${s}`).toEqual(expect.arrayContaining(expandScopes([s])));
      // A write or admin scope is offered only when it opens something the role may do.
      for (const s of allowed.filter((x) => !x.endsWith(":read"))) {
        const opens = ACTIONS.some((a) => permits(role, { kind: "user-token", scopes: [s] }, a));
        if (!["org:integrations", "project:distribution"].includes(s)) expect(opens, `${role}: ${s}`).toBe(true);
      }
    }
    for (const a of ACTIONS) {
      const p = PERMISSIONS[a] as { sessionOnly?: boolean; scopes: readonly string[]; role: "viewer" | "member" | "admin" | "owner" };
      if (p.sessionOnly) continue;
      expect(scopesForRole(p.role), a).toContain(p.scopes[0]);
    }
  });

  test("Sentry's scope vocabulary: each scope grants what it grants in Sentry, within the role", () => {
    const grants = (scopes: string[], role: "viewer" | "member" | "admin" | "owner" = "owner") =>
      ACTIONS.filter((a) => permits(role, { kind: "user-token", scopes }, a));
    // Reads of one resource each.
    expect(grants(["team:read"])).toEqual(["team.read"]);
    expect(grants(["alerts:read"])).toEqual(["alert.read"]);
    expect(grants(["member:read"])).toEqual(["member.read"]);
    expect(grants(["event:read"])).toEqual(["event.read"]);
    expect(grants(["org:read"])).toEqual(["org.read", "release.read"]);
    // Levels carry the ones below them (Sentry's hierarchy).
    expect(grants(["project:admin"])).toEqual(grants(["project:write"]));
    expect(grants(["project:write"])).toEqual(expect.arrayContaining(grants(["project:read"])));
    expect(grants(["team:write"])).toEqual(["team.read", "team.write"]);
    expect(grants(["team:admin"])).toEqual(["team.read", "team.write"]);
    expect(grants(["alerts:write"])).toEqual(["alert.read", "alert.write"]);
    expect(grants(["member:invite"])).toEqual(["member.read", "member.invite"]);
    expect(grants(["member:admin"])).toEqual(["member.read", "member.invite", "member.admin"]);
    expect(grants(["event:admin"])).toEqual(grants(["event:write"]));
    expect(grants(["event:admin"])).toContain("issue.delete");
    // Sentry reads its audit log with org:write; otherwise the org levels add no route of their own.
    expect(grants(["org:admin"])).toEqual(ACTIONS.filter((a) => a === "audit.read" || grants(["org:read"]).includes(a)));
    expect(grants(["member:admin"])).not.toContain("audit.read");
    // alerts:write changes alert rules, not the project.
    expect(grants(["alerts:write"])).not.toContain("project.write");
    // org:ci on a personal token: CI's rows, as on an organization token.
    expect(grants(["org:ci"])).toEqual(ACTIONS.filter((a) => permits("owner", { kind: "org-token", scopes: ["org:ci"] }, a)));
    // Never beyond the creator's role: a member's admin scopes open nothing a member cannot do.
    const strong = ["project:admin", "team:admin", "event:admin", "member:admin", "alerts:write"];
    for (const a of grants(strong, "member")) expect(permits("member", { kind: "session" }, a), a).toBe(true);
    expect(grants(strong, "member")).not.toContain("issue.delete");
    expect(grants(strong, "member")).toContain("issue.update");
    for (const a of grants(TOKEN_SCOPES as unknown as string[], "viewer")) expect(permits("viewer", { kind: "session" }, a), a).toBe(true);
    expect(expandScopes(["event:admin", "nonsense"])).toEqual(["event:read", "event:write", "event:admin", "nonsense"]);
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
