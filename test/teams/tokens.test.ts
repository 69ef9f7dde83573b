/**
 * API tokens, first through the services on both databases (org tokens for admins only, in the
 * `sntrys_` form carrying the URL and org, stored hashed, working in their org only, expiring,
 * revocable; personal `sntryu_` tokens), then end to end with the real sentry-cli against the built
 * server: an organization token (Sentry's org:ci) creates, finalizes and deploys a release and
 * uploads source maps with no SENTRY_URL and no warning, and cannot read issues or delete releases.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth, createUserWithPassword, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { AppServices } from "../../src/server/services";
import type { Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { openDb } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertOrg, upsertMember } from "../../src/storage/orgs/orgs";
import { insertProject } from "../../src/storage/orgs/projects";
import { ROOT, startServer, type TestServer } from "../helpers/server";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";

const execFileP = promisify(execFile);
let clock = Date.UTC(2026, 4, 10, 12, 0, 0);

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe.each(await dialects())("token services on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: AppServices;
  const who = {} as Record<"owner" | "member" | "stranger", Viewer>;

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: "silent", PUBLIC_URL: "https://errata.example" });
    const auth = createAuth(db, config, "x".repeat(32));
    await migrateAuth(db, config, "x".repeat(32));
    s = createServices({ db, auth, config, log: createLogger("silent"), now: () => clock });
    for (const name of ["owner", "member", "stranger"] as const) {
      const u = await createUserWithPassword(auth, { email: `${name}@example.com`, password: "correct horse battery", name });
      who[name] = { userId: u.id, email: `${name}@example.com`, name };
    }
    await writeTx(db, async (tx) => {
      const acme = await insertOrg(tx, { slug: "acme", name: "Acme", now: 1 });
      const other = await insertOrg(tx, { slug: "other", name: "Other", now: 1 });
      await upsertMember(tx, { orgId: acme.id, userId: who.owner.userId, role: "owner", now: 1 });
      await upsertMember(tx, { orgId: other.id, userId: who.owner.userId, role: "owner", now: 1 });
      await upsertMember(tx, { orgId: acme.id, userId: who.member.userId, role: "member", now: 1 });
      await upsertMember(tx, { orgId: other.id, userId: who.stranger.userId, role: "owner", now: 1 });
      await insertProject(tx, { orgId: acme.id, slug: "shop", name: "shop", platform: "node", now: 1 });
    });
  });
  afterAll(async () => close());

  test("organization tokens: admins only, sntrys_ with URL and org, hashed, their org only, expiry, revocation", async () => {
    expect(await codeOf(s.tokens.createOrg(who.member, "acme", { name: "CI" }))).toBe("forbidden");
    expect(await codeOf(s.tokens.createOrg(who.stranger, "acme", { name: "CI" }))).toBe("not_found");
    const { token, secret } = await s.tokens.createOrg(who.owner, "acme", { name: "CI", expiresInDays: 30 });
    // Sentry's org:ci, whatever was asked (issue 39): releases, deploys, source maps and their reads.
    expect(token.scopes).toEqual(["org:ci"]);
    expect(token.can).toContain("upload source maps and release files");
    expect(token.can).not.toContain("delete releases");
    const m = secret.match(/^sntrys_([A-Za-z0-9+/=]+)_([A-Za-z0-9+/]{43})$/);
    expect(m).not.toBeNull();
    expect(JSON.parse(Buffer.from(m?.[1] as string, "base64").toString())).toMatchObject({
      url: "https://errata.example",
      region_url: "https://errata.example",
      org: "acme",
    });
    const stored = await db.kysely.selectFrom("api_tokens").select(["token_hash", "token_prefix"]).execute();
    expect(stored.map((r) => r.token_hash)).toContain(createHash("sha256").update(secret).digest("hex"));
    expect(JSON.stringify(stored)).not.toContain(m?.[2]);

    const v = await s.session.viewerFromToken(`Bearer ${secret}`);
    expect(v?.tokenOrgId).not.toBeNull();
    expect((await s.orgs.get(v as Viewer, "acme")).slug).toBe("acme");
    // The owner is also owner of "other", but the token is acme's.
    expect(await codeOf(s.orgs.get(v as Viewer, "other"))).toBe("not_found");
    expect((await s.orgs.listForViewer(v as Viewer)).map((o) => o.slug)).toEqual(["acme"]);
    // Default scope: releases, not issues.
    expect(await codeOf(s.issueStream.search(v as Viewer, "acme", {}))).toBe("forbidden");
    // Tokens cannot mint tokens.
    expect(await codeOf(s.tokens.createOrg(v as Viewer, "acme", { name: "x" }))).toBe("forbidden");

    expect((await s.tokens.listOrg(who.owner, "acme")).map((t) => t.name)).toEqual(["CI"]);
    expect(await s.tokens.listOrg(who.owner, "other")).toEqual([]);
    expect(await codeOf(s.tokens.revokeOrg(who.stranger, "other", token.id))).toBe("not_found");

    clock += 31 * 24 * 3600 * 1000;
    expect(await s.session.viewerFromToken(`Bearer ${secret}`)).toBeNull();
    clock -= 31 * 24 * 3600 * 1000;
    await s.tokens.revokeOrg(who.owner, "acme", token.id);
    expect(await s.session.viewerFromToken(`Bearer ${secret}`)).toBeNull();
    expect(await codeOf(s.tokens.createOrg(who.owner, "acme", { name: "x", scopes: ["root"] }))).toBe("validation_failed");
  });

  test("personal tokens: sntryu_ + 64 hex, listed for their owner only, revocable", async () => {
    const { token, secret } = await s.tokens.createPersonal(who.member, { name: "script", scopes: ["event:read", "event:write"] });
    expect(secret).toMatch(/^sntryu_[0-9a-f]{64}$/);
    const v = (await s.session.viewerFromToken(`Bearer ${secret}`)) as Viewer;
    expect(v.scopes).toEqual(["event:read", "event:write"]);
    // Scopes never exceed the role: a member's token cannot delete issues, and the scopes only an
    // admin uses are refused when the token is made.
    expect(await codeOf(s.issueActions.delete({ ...v, scopes: ["event:write"] }, "acme", [1]))).toBe("forbidden");
    expect(await codeOf(s.tokens.createPersonal(who.member, { name: "too much", scopes: ["project:write"] }))).toBe("scope_not_allowed");
    expect(await s.tokens.personalScopes(who.member)).not.toContain("project:write");
    expect(await s.tokens.personalScopes(who.member)).toContain("project:releases");
    expect((await s.tokens.listPersonal(who.member)).map((t) => t.id)).toEqual([token.id]);
    expect(await s.tokens.listPersonal(who.owner)).toEqual([]);
    expect(await codeOf(s.tokens.revokePersonal(who.owner, token.id))).toBe("not_found");
    await s.tokens.revokePersonal(who.member, token.id);
    expect(await s.session.viewerFromToken(`Bearer ${secret}`)).toBeNull();
  });

  test("Sentry's scope vocabulary: each scope opens what it opens in Sentry, with its hierarchy, never beyond the role", async () => {
    const viewerOf = async (owner: Viewer, scopes: string[]) =>
      (await s.session.viewerFromToken(
        `Bearer ${(await s.tokens.createPersonal(owner, { name: scopes.join(" "), scopes })).secret}`,
      )) as Viewer;
    // team:read and alerts:read, as tools written for Sentry ask: the teams and the alert rules, nothing else of a project.
    const reader = await viewerOf(who.owner, ["team:read", "alerts:read"]);
    expect(reader.scopes).toEqual(["team:read", "alerts:read"]);
    expect(Array.isArray((await s.teams.page(reader, "acme")).teams)).toBe(true);
    expect(Array.isArray((await s.alerts.overview(reader, "acme", "shop")).rules)).toBe(true);
    expect(await codeOf(s.projects.get(reader, "acme", "shop"))).toBe("forbidden");
    expect(await codeOf(s.teams.create(reader, "acme", { name: "nope" }))).toBe("forbidden");
    // project:admin carries project:write and project:read (stored with them, as Sentry's form sends them).
    const admin = await viewerOf(who.owner, ["project:admin"]);
    expect(admin.scopes).toEqual(["project:read", "project:write", "project:admin"]);
    expect((await s.projects.get(admin, "acme", "shop")).slug).toBe("shop");
    // team:write makes teams; alerts:write alone changes no project setting.
    expect((await s.teams.create(await viewerOf(who.owner, ["team:write"]), "acme", { name: "Platform" })).slug).toBe("platform");
    // A member may not put an admin scope on a token; reads are theirs (they grant only what the role may).
    expect(await codeOf(s.tokens.createPersonal(who.member, { name: "x", scopes: ["event:admin"] }))).toBe("scope_not_allowed");
    expect(await codeOf(s.tokens.createPersonal(who.member, { name: "x", scopes: ["team:admin"] }))).toBe("scope_not_allowed");
    const memberReader = await viewerOf(who.member, ["team:read", "org:ci"]);
    expect(await codeOf(s.teams.page(memberReader, "acme"))).toBe("forbidden");
    expect(await s.tokens.personalScopes(who.member)).toEqual(expect.arrayContaining(["team:read", "alerts:read", "org:ci"]));
    expect(await s.tokens.personalScopes(who.owner)).toEqual(expect.arrayContaining(["org:admin", "member:admin", "event:admin"]));
    // Names Sentry does not have are still refused.
    expect(await codeOf(s.tokens.createPersonal(who.owner, { name: "x", scopes: ["root"] }))).toBe("validation_failed");
  });
});

describe("sentry-cli with an organization token", () => {
  let server: TestServer;
  let secret: string;

  beforeAll(async () => {
    server = await startServer();
    await server.cli("user", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--org", "acme");
    await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript");
    // The same service the settings page calls, in the test process over the server's database.
    const db = openDb(server.db.config);
    try {
      const config = loadConfig({ DATA_DIR: server.db.dataDir, LOG_LEVEL: "silent", PUBLIC_URL: server.url });
      const s = createServices({ db, auth: createAuth(db, config, "y".repeat(32)), config, log: createLogger("silent") });
      const { rows } = await sql<{ id: string }>`select id from "user" where email = ${"owner@example.com"}`.execute(db.kysely);
      const owner = { userId: rows[0]?.id as string, email: "owner@example.com", name: "Owner" };
      secret = (await s.tokens.createOrg(owner, "acme", { name: "CI" })).secret;
    } finally {
      await db.close();
    }
  });
  afterAll(async () => server?.stop());

  async function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
    // No SENTRY_URL and no SENTRY_ORG: the token carries both.
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: tempDir(),
      SENTRY_AUTH_TOKEN: secret,
      SENTRY_LOG_LEVEL: "warn",
    };
    return execFileP(path.join(ROOT, "node_modules/.bin/sentry-cli"), args, { env: env as NodeJS.ProcessEnv });
  }

  test("creates, finalizes and deploys a release and uploads source maps without warnings; cannot read issues or delete", async () => {
    const created = await cli("releases", "new", "--project", "web", "1.0.0");
    expect(created.stdout).toContain("1.0.0");
    // sentry-cli warns about unrecognised tokens or a URL that disagrees with the token's.
    expect(created.stderr).not.toMatch(/token|url/i);
    const dir = tempDir();
    const fs = await import("node:fs");
    fs.writeFileSync(path.join(dir, "app.js"), "function a(){throw new Error('x')}\n//# sourceMappingURL=app.js.map\n");
    fs.writeFileSync(
      path.join(dir, "app.js.map"),
      JSON.stringify({ version: 3, sources: ["a.ts"], names: [], mappings: "AAAA", file: "app.js" }),
    );
    const up = await cli("sourcemaps", "upload", "--project", "web", "--release", "1.0.0", dir);
    expect(up.stderr).not.toMatch(/token|url/i);
    // The rest of a release job (org:ci): finalize, record a deploy, list deploys.
    await cli("releases", "finalize", "1.0.0");
    await cli("deploys", "new", "--release", "1.0.0", "--env", "production");
    expect((await cli("deploys", "list", "--release", "1.0.0")).stdout).toContain("production");
    const api = (p: string, method = "GET") =>
      fetch(`${server.url}/api/0/${p}`, { method, headers: { authorization: `Bearer ${secret}` } });
    expect(
      ((await (await api("organizations/acme/releases/1.0.0/")).json()) as { dateReleased: string | null }).dateReleased,
    ).not.toBeNull();
    // …and nothing beyond it: no issues, and a release is deleted by a person, not by CI (Sentry's org:ci).
    expect((await api("projects/acme/web/issues/")).status).toBe(403);
    await expect(cli("releases", "delete", "1.0.0")).rejects.toThrow();
    expect((await api("organizations/acme/releases/1.0.0/")).status).toBe(200);
  });
});
