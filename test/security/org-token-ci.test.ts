/**
 * Issue 39, item 1, on SQLite and PostgreSQL against the built server: an organization token is
 * for CI (Sentry's `org:ci`) and never outgrows its creator.
 *
 * The issue's case: an admin creates an organization token with every box ticked; the owner
 * demotes the admin to viewer; the token then tries to create a DSN key, invite an admin, delete
 * an issue and delete the project — each refused with the catalogue's `forbidden`, nothing changed.
 * Around it: before the demotion the token does CI's work (creates a release) and nothing else;
 * after it, it still reads releases (a viewer may) but no longer writes them; a token stored with
 * every scope (as before migration 0043) is refused the same; when the creator leaves the
 * organization, the token stops authenticating at all.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { TOKEN_SCOPES } from "../../src/core/token-scopes.js";
import { createLogger } from "../../src/log";
import { createAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import { type Db, openDb } from "../../src/storage/db.js";
import { insertToken } from "../../src/storage/members/tokens.js";
import { upsertMember } from "../../src/storage/orgs/orgs.js";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

const PASSWORD = "correct horse battery";

describe.each(await dialects())("organization tokens are CI tokens that never outgrow their creator, on %s", (dialect) => {
  let server: TestServer;
  let db: Db;
  let ownerToken: string;
  let adminId: string;
  let issueId: string;

  async function userId(email: string): Promise<string> {
    const row = (await db.kysely
      .selectFrom("user" as never)
      .select("id" as never)
      .where("email" as never, "=", email as never)
      .executeTakeFirstOrThrow()) as { id: string };
    return row.id;
  }

  async function call(token: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: { error?: { code?: string } } & Record<string, unknown> = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = {};
    }
    return { status: res.status, code: json.error?.code, body: json };
  }

  /** What the refused calls could have changed: keys, invitations, the issue, the project. */
  async function state() {
    const keys = await db.kysely.selectFrom("project_keys").select("public_key").orderBy("id").execute();
    const invitations = await db.kysely.selectFrom("invitations").select("email").execute();
    const issue = await db.kysely.selectFrom("issues").select("id").where("id", "=", Number(issueId)).execute();
    const projects = await db.kysely.selectFrom("projects").select("slug").orderBy("id").execute();
    return { keys: keys.map((k) => k.public_key), invitations: invitations.map((i) => i.email), issue: issue.length, projects };
  }

  beforeAll(async () => {
    server = await startServer({ dialect });
    db = openDb(server.db.config);
    await server.cli("user", "create", "--email", "olga@acme.test", "--password", PASSWORD, "--org", "acme");
    await server.cli("user", "create", "--email", "adam@acme.test", "--password", PASSWORD, "--org", "adam-home");
    const acme = Number((await db.kysely.selectFrom("organizations").select("id").where("slug", "=", "acme").executeTakeFirstOrThrow()).id);
    adminId = await userId("adam@acme.test");
    await upsertMember(db.kysely, { orgId: acme, userId: adminId, role: "admin", now: Date.now() });
    const dsn = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript");
    await server.cli("send-test-event", "--dsn", dsn, "--message", "org token target");
    ownerToken = `errata_${randomBytes(24).toString("base64url")}`;
    await insertToken(db, {
      userId: await userId("olga@acme.test"),
      orgId: null,
      name: "owner",
      tokenHash: createHash("sha256").update(ownerToken).digest("hex"),
      tokenPrefix: ownerToken.slice(0, 12),
      scopes: [...TOKEN_SCOPES],
      now: Date.now(),
    });
    issueId = String((await eventually(() => db.kysely.selectFrom("issues").select("id").executeTakeFirst(), 30_000, "the issue")).id);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  test("the issue's case: an admin's all-boxes org token, the admin demoted to viewer, every escalation refused", async () => {
    // The same service the settings page's form calls, every box ticked, in the test process over the server's database.
    const config = loadConfig({ DATA_DIR: server.db.dataDir, LOG_LEVEL: "silent", PUBLIC_URL: server.url });
    const s = createServices({ db, auth: createAuth(db, config, "y".repeat(32)), config, log: createLogger("silent") });
    const admin = { userId: adminId, email: "adam@acme.test", name: "Adam" };
    const created = await s.tokens.createOrg(admin, "acme", { name: "everything", scopes: [...TOKEN_SCOPES] });
    expect(created.token.scopes).toEqual(["org:ci"]);
    const ci = created.secret;

    // As made by an admin: CI's work, and nothing beyond it.
    expect((await call(ci, "POST", "/api/0/organizations/acme/releases/", { version: "ci-1", projects: ["web"] })).status).toBe(201);
    const keyBefore = await call(ci, "POST", "/api/0/projects/acme/web/keys/", { name: "ci key" });
    expect([keyBefore.status, keyBefore.code]).toEqual([403, "forbidden"]);
    expect((await call(ci, "DELETE", "/api/0/organizations/acme/releases/ci-1/")).status).toBe(403);

    const demoted = await call(ownerToken, "PUT", `/api/0/organizations/acme/members/${adminId}/`, { role: "viewer" });
    expect(demoted.status).toBe(200);
    const before = await state();
    const attempts = [
      await call(ci, "POST", "/api/0/projects/acme/web/keys/", { name: "stolen" }),
      await call(ci, "POST", "/api/0/organizations/acme/members/", { email: "mallory@evil.test", orgRole: "admin" }),
      await call(ci, "DELETE", `/api/0/organizations/acme/issues/${issueId}/`),
      await call(ci, "DELETE", "/api/0/projects/acme/web/"),
    ];
    expect(attempts.map((a) => [a.status, a.code])).toEqual([
      [403, "forbidden"],
      [403, "forbidden"],
      [403, "forbidden"],
      [403, "forbidden"],
    ]);
    expect(await state()).toEqual(before);
    // The creator is a viewer now: the token reads releases, and writes none.
    expect((await call(ci, "GET", "/api/0/organizations/acme/releases/ci-1/")).status).toBe(200);
    const write = await call(ci, "POST", "/api/0/organizations/acme/releases/", { version: "ci-2", projects: ["web"] });
    expect([write.status, write.code]).toEqual([403, "forbidden"]);
    // The token page says so.
    const listed = (await s.tokens.listOrg({ userId: await userId("olga@acme.test"), email: "olga@acme.test", name: "Olga" }, "acme")).find(
      (t) => t.id === created.token.id,
    );
    expect(listed?.createdBy).toEqual({ name: "adam", role: "viewer" });
    expect(listed?.can).toEqual(["see the organization, its projects, teams and stats", "read releases, commits and deploys"]);

    // A token stored with every scope (as before migration 0043 narrowed them) gets no further.
    const legacy = `sntrys_${randomBytes(24).toString("base64url")}`;
    const acme = Number((await db.kysely.selectFrom("organizations").select("id").where("slug", "=", "acme").executeTakeFirstOrThrow()).id);
    await insertToken(db, {
      userId: await userId("olga@acme.test"),
      orgId: acme,
      name: "legacy",
      tokenHash: createHash("sha256").update(legacy).digest("hex"),
      tokenPrefix: "sntrys_…legacy",
      scopes: [...TOKEN_SCOPES],
      now: Date.now(),
    });
    for (const [method, path] of [
      ["POST", "/api/0/projects/acme/web/keys/"],
      ["DELETE", `/api/0/organizations/acme/issues/${issueId}/`],
      ["DELETE", "/api/0/projects/acme/web/"],
    ] as const)
      expect((await call(legacy, method, path, method === "POST" ? { name: "x" } : undefined)).status, `${method} ${path}`).toBe(403);
    expect(await state()).toEqual(before);

    // The creator leaves: the token dies with the membership.
    expect((await call(ownerToken, "DELETE", `/api/0/organizations/acme/members/${adminId}/`)).status).toBe(204);
    expect((await call(ci, "GET", "/api/0/organizations/acme/releases/ci-1/")).status).toBe(401);
    expect((await call(ci, "GET", "/api/0/")).status).toBe(401);
  });
});
