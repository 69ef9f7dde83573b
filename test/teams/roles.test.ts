/**
 * SPEC §6 role table, enforced by the services on both databases: each role tries every kind of
 * mutation (issue triage, comments, merge, delete, releases, artifacts, projects, DSN keys,
 * invitations, roles, removals) and gets exactly the answer the table gives; a token never does
 * more than its creator's current role; reads work for every role.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth, createUserWithPassword, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { AppServices } from "../../src/server/services";
import type { Role, Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertIssue } from "../../src/storage/issues/issues";
import { insertOrg, upsertMember } from "../../src/storage/orgs/orgs";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";

const NOW = Date.UTC(2026, 4, 10, 12, 0, 0);
const ROLES: Role[] = ["viewer", "member", "admin", "owner"];

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe.each(await dialects())("roles (SPEC §6) on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: AppServices;
  const who: Record<Role, Viewer> = {} as Record<Role, Viewer>;
  let issueIds: number[] = [];

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: "silent", PUBLIC_URL: "https://errata.example" });
    const auth = createAuth(db, config, "x".repeat(32));
    await migrateAuth(db, config, "x".repeat(32));
    s = createServices({ db, auth, config, log: createLogger("silent"), now: () => NOW });
    for (const role of ROLES) {
      const u = await createUserWithPassword(auth, { email: `${role}@example.com`, password: "correct horse battery", name: role });
      who[role] = { userId: u.id, email: `${role}@example.com`, name: role };
    }
    await writeTx(db, async (tx) => {
      const org = await insertOrg(tx, { slug: "acme", name: "Acme", now: 1 });
      for (const role of ROLES) await upsertMember(tx, { orgId: org.id, userId: who[role].userId, role, now: 1 });
    });
    const p = await s.projects.create(who.owner, "acme", { name: "web", platform: "node" });
    issueIds = await writeTx(db, async (tx) => {
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) {
        const base = { culprit: "x", type: "error", level: "error", metadata: {}, groupingVersion: "v2" };
        ids.push(
          (await insertIssue(tx, { ...base, projectId: p.id, title: `bug ${i}`, seenAt: NOW, release: null, hashes: [`h${i}`] })).id,
        );
      }
      return ids;
    });
  });
  afterAll(async () => close());

  const allowed = (role: Role, min: Role) => ROLES.indexOf(role) >= ROLES.indexOf(min);

  test.each(ROLES)("%s: reads issues, releases, projects; members page needs admin", async (role) => {
    const v = who[role];
    expect((await s.issues.get(v, "acme", issueIds[0] as number)).title).toBe("bug 0");
    expect((await s.projects.list(v, "acme")).map((p) => p.slug)).toEqual(["web"]);
    expect((await s.releases.list(v, "acme")).items).toEqual([]);
    // Organization settings (members) are for admins and owners.
    if (allowed(role, "admin")) expect((await s.members.page(v, "acme")).members).toHaveLength(4);
    else expect(await codeOf(s.members.page(v, "acme"))).toBe("forbidden");
  });

  test.each(ROLES)("%s: triage (resolve, assign, comment, merge) needs member", async (role) => {
    const v = who[role];
    const i = ROLES.indexOf(role);
    const want = allowed(role, "member") ? undefined : "forbidden";
    expect(await codeOf(s.issueActions.update(v, "acme", issueIds[1] as number, { status: "resolved" }))).toBe(want);
    expect(await codeOf(s.issueActions.update(v, "acme", issueIds[1] as number, { assignedTo: who.member.userId }))).toBe(want);
    expect(await codeOf(s.issueActions.comment(v, "acme", issueIds[1] as number, "looking"))).toBe(want);
    const pair = [issueIds[2 + 2 * i], issueIds[3 + 2 * i]] as number[];
    expect(await codeOf(s.issueActions.merge(v, "acme", pair))).toBe(want);
  });

  test.each(ROLES)("%s: deleting issues needs admin; releases and uploads need member (as in Sentry)", async (role) => {
    const v = who[role];
    expect(await codeOf(s.issueActions.delete(v, "acme", [issueIds[10 + (role === "owner" ? 1 : 0)] as number]))).toBe(
      allowed(role, "admin") ? undefined : "forbidden",
    );
    const want = allowed(role, "member") ? undefined : "forbidden";
    expect(await codeOf(s.artifacts.createRelease(v, "acme", { version: `1.0.${role}`, projects: ["web"] }))).toBe(want);
    expect(await codeOf(s.artifacts.chunkUploadOptions(v, "acme"))).toBe(want);
    expect(await codeOf(s.releaseApi.create(v, "acme", { version: `3.0.${role}`, projects: ["web"] }))).toBe(want);
    // A token with every scope still acts with its creator's role.
    const token = { ...v, scopes: ["project:releases", "project:write", "event:write", "event:read", "project:read", "org:read"] };
    expect(await codeOf(s.artifacts.createRelease(token, "acme", { version: `2.0.${role}`, projects: ["web"] }))).toBe(want);
    expect(await codeOf(s.releaseApi.delete(token, "acme", `3.0.${role}`))).toBe(allowed(role, "member") ? undefined : "forbidden");
  });

  test.each(ROLES)("%s: projects, DSN keys and invitations need admin; owners only invite owners", async (role) => {
    const v = who[role];
    const want = allowed(role, "admin") ? undefined : "forbidden";
    expect(await codeOf(s.projects.create(v, "acme", { name: `p-${role}`, platform: "node" }))).toBe(want);
    expect(await codeOf(s.keys.create(v, "acme", "web", { label: `k-${role}` }))).toBe(want);
    expect(await codeOf(s.members.invite(v, "acme", { email: `new-${role}@example.com`, role: "member" }))).toBe(want);
    expect(await codeOf(s.members.invite(v, "acme", { email: `boss-${role}@example.com`, role: "owner" }))).toBe(
      role === "owner" ? undefined : "forbidden",
    );
  });

  test.each(ROLES)("%s: changing roles and removing others need owner", async (role) => {
    const v = who[role];
    const want = role === "owner" ? undefined : "forbidden";
    expect(await codeOf(s.members.changeRole(v, "acme", who.viewer.userId, "viewer"))).toBe(want);
    // Authorization comes first: only an owner learns that the role is unknown.
    expect(await codeOf(s.members.changeRole(v, "acme", who.viewer.userId, "superuser"))).toBe(
      role === "owner" ? "validation_failed" : "forbidden",
    );
  });

  test("an owner creates another organization and owns it; others cannot; reserved and taken slugs are refused", async () => {
    expect(await s.orgs.create(who.owner, { name: "Beta", slug: "beta" })).toEqual({ slug: "beta" });
    expect((await s.orgs.get(who.owner, "beta")).role).toBe("owner");
    expect((await s.orgs.listForViewer(who.owner)).map((o) => o.slug)).toEqual(["acme", "beta"]);
    expect(await codeOf(s.orgs.get(who.member, "beta"))).toBe("not_found");
    expect(await codeOf(s.orgs.create(who.member, { name: "Mine", slug: "mine" }))).toBe("forbidden");
    expect(await codeOf(s.orgs.create(who.owner, { name: "Again", slug: "beta" }))).toBe("conflict");
    expect(await codeOf(s.orgs.create(who.owner, { name: "Api", slug: "api" }))).toBe("validation_failed");
    expect(await codeOf(s.orgs.create({ ...who.owner, scopes: ["org:read"] }, { name: "T", slug: "tok" }))).toBe("forbidden");
  });

  test("the last owner can neither be demoted nor leave; a member can leave; removal is owner-only", async () => {
    expect(await codeOf(s.members.changeRole(who.owner, "acme", who.owner.userId, "admin"))).toBe("last_owner");
    expect(await codeOf(s.members.remove(who.owner, "acme", who.owner.userId))).toBe("last_owner");
    expect(await codeOf(s.members.remove(who.admin, "acme", who.member.userId))).toBe("forbidden");
    await s.members.changeRole(who.owner, "acme", who.admin.userId, "owner");
    // Two owners now: one may step down.
    await s.members.changeRole(who.admin, "acme", who.owner.userId, "admin");
    expect(await codeOf(s.members.changeRole(who.admin, "acme", who.admin.userId, "member"))).toBe("last_owner");
    await s.members.changeRole(who.admin, "acme", who.owner.userId, "owner");
    await s.members.remove(who.viewer, "acme", who.viewer.userId);
    expect(await codeOf(s.issues.get(who.viewer, "acme", issueIds[0] as number))).toBe("not_found");
    expect((await s.members.page(who.owner, "acme")).members.map((m) => m.role).sort()).toEqual(["member", "owner", "owner"]);
  });
});
