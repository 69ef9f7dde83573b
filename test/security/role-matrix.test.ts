/**
 * The role matrix (issue 27), on SQLite and PostgreSQL against the built server: every REST route
 * (× each method it exports, discovered from the file system by test/security/route-table.ts)
 * × owner, admin, member, viewer of "acme" and an outsider (globex's owner)
 * × browser session (cookie), personal token (every scope: the role must narrow it) and
 *   organization token (Sentry's org:ci: the table's CI rows, within its creator's role).
 *
 * What each cell must answer is read from the permission table (src/server/access/permissions.ts)
 * through the action each route names in `apiRoute("…", …)`: allowed → anything but 401/403 (ids
 * that do not exist answer 404, bodies `{}` answer 400: the permission is checked first); refused →
 * 403. The outsider is refused every organization route (403 or 404). No cell answers 5xx. A REST
 * route that names no action fails the test, so a new route cannot skip the table.
 *
 * Server actions too: each declares its action in a `// permission: <action>` line above it (or
 * `signed-in` for the caller's own account), and is replayed by id (Next-Action) with the browser
 * session of each role and the outsider. Refused → the answer carries the refusal (`forbidden`,
 * the forms' "Only admins and owners" or the monitor page's `?refused=forbidden`; the outsider
 * may get not_found); allowed → no refusal and no success where the table refuses. Ids that exist
 * nowhere keep an allowed replay from destroying the fixture. An action with no declaration fails.
 *
 * SCIM routes (`scimRoute(…)`, issue 42) authenticate with the organization's SCIM token, never a
 * person: every actor above is refused them (401), and their own test checks that acme's SCIM token
 * reaches each (no 401/403, no 5xx) while globex's and none are refused.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TOKEN_SCOPES } from "../../src/core/token-scopes.js";
import { type Action, type Credential, isAction, permits } from "../../src/server/access/permissions.js";
import type { Role } from "../../src/server/types.js";
import { type Db, openDb } from "../../src/storage/db.js";
import { writeTx } from "../../src/storage/dialect.js";
import { putScimToken } from "../../src/storage/identity/scim.js";
import { insertTeam, setTeamMember, setTeamProject } from "../../src/storage/members/teams.js";
import { insertToken } from "../../src/storage/members/tokens.js";
import { upsertMember } from "../../src/storage/orgs/orgs.js";
import { ROOT, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";
import { discoverActions, discoverRoutes, fill, type HttpRoute, type ServerAction } from "./route-table.js";

const require = createRequire(import.meta.url);
// React's own encoder for server action arguments (what the browser sends); no types shipped.
const { encodeReply } = require("next/dist/compiled/react-server-dom-turbopack/client.edge.js") as {
  encodeReply(value: unknown): Promise<string | FormData>;
};

const APP_DIR = path.join(ROOT, "src/app");
const PASSWORD = "correct horse battery";
// Every scope a token can carry, from the one list the product validates against.
const ALL_SCOPES: string[] = [...TOKEN_SCOPES];
const ORG_TOKEN_SCOPES = ["org:ci"];
/** Routes under /api that are not REST: Better Auth's own endpoints, the SSO browser redirects, SAML's ACS and SP metadata. */
const NOT_REST = new Set([
  "/api/auth/[...all]",
  "/api/sso/[org]/start",
  "/api/sso/[org]/callback",
  "/api/sso/[org]/saml/acs",
  "/api/sso/[org]/saml/metadata",
]);
const ROLES: Role[] = ["owner", "admin", "member", "viewer"];

type Declared = Action | "signed-in" | "public" | "scim";

/**
 * Routes whose allowed call would destroy the fixture the other cells read: aimed at something that
 * does not exist (the permission table decides before any lookup: refused 403, allowed 404).
 */
const DESTRUCTIVE: Record<string, Record<string, string>> = {
  "DELETE /api/0/projects/[org]/[project]": { project: "no-such-project" },
};

/** The access each exported method of a route file declares in `apiRoute("…", …)`, by method. */
function declaredAccess(file: string): Record<string, Declared | undefined> {
  const source = fs.readFileSync(file, "utf8");
  const wrapped = new Map<string, string>();
  for (const m of source.matchAll(/const\s+(\w+)\s*=\s*apiRoute(?:<[^>]*>)?\(\s*"([^"]+)"/g)) wrapped.set(m[1] as string, m[2] as string);
  const out: Record<string, Declared | undefined> = {};
  for (const m of source.matchAll(/export\s+const\s+(GET|POST|PUT|PATCH|DELETE)\s*=\s*(\w+)/g)) {
    const [, method, value] = m as unknown as [string, string, string];
    // SCIM routes declare themselves by their wrapper: the organization's SCIM token, no person.
    const name = value === "scimRoute" ? "scim" : (wrapped.get(method) ?? wrapped.get(value));
    out[method] = name && (name === "signed-in" || name === "public" || name === "scim" || isAction(name)) ? (name as Declared) : undefined;
  }
  return out;
}

/** What a server action declares in the `// permission: …` line right above its `export async function`. */
function declaredActionAccess(root: string, action: ServerAction): Exclude<Declared, "public" | "scim"> | undefined {
  const source = fs.readFileSync(path.join(root, action.file), "utf8");
  const m = new RegExp(`^// permission: ([\\w.-]+)\\nexport async function ${action.name}\\b`, "m").exec(source);
  const name = m?.[1];
  return name && (name === "signed-in" || isAction(name)) ? (name as Exclude<Declared, "public" | "scim">) : undefined;
}

/** Server actions not replayed, with why (their behaviour has its own tests). */
const NOT_REPLAYED: Record<string, string> = {
  signOutEverywhereAction: "ends the replaying actor's own session (test/teams/account.test.ts)",
};

/** Form fields an action needs other than the shared ones to reach its service. */
const FIELD_OVERRIDES: Record<string, Record<string, string>> = { dangerKeyAction: { op: "disable" } };

/** Answers that say "refused" in each of the action families' words. */
const REFUSAL = /"code":"forbidden"|Only admins and owners can change this|Not changed: |refused=forbidden/;
const SUCCESS = /"ok":true|"status":"ok"/;

interface Actor {
  name: string;
  role: Role | "outsider";
  credential: Credential;
  headers: Record<string, string>;
}

interface Cell {
  what: string;
  actor: string;
  expected: "allow" | "deny";
  status: number;
  problem: string | null;
}

describe.each(await dialects())("role matrix on %s", (dialect) => {
  let server: TestServer;
  let db: Db;
  const routes = discoverRoutes(APP_DIR).filter((r) => r.kind === "route" && r.pattern.startsWith("/api/") && !NOT_REST.has(r.pattern));
  const actors: Actor[] = [];
  const values: Record<string, string> = {};
  const actions = discoverActions(ROOT);

  async function userId(email: string): Promise<string> {
    const row = (await db.kysely
      .selectFrom("user" as never)
      .select("id" as never)
      .where("email" as never, "=", email as never)
      .executeTakeFirstOrThrow()) as { id: string };
    return row.id;
  }

  async function token(email: string, scopes: string[], orgId: number | null): Promise<string> {
    const secret = `errata_${randomBytes(24).toString("base64url")}`;
    await insertToken(db, {
      userId: await userId(email),
      orgId,
      name: `role matrix ${orgId ?? "user"}`,
      tokenHash: createHash("sha256").update(secret).digest("hex"),
      tokenPrefix: secret.slice(0, 12),
      scopes,
      now: Date.now(),
    });
    return secret;
  }

  async function signIn(email: string): Promise<string> {
    const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    return res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
  }

  async function orgId(slug: string): Promise<number> {
    return Number((await db.kysely.selectFrom("organizations").select("id").where("slug", "=", slug).executeTakeFirstOrThrow()).id);
  }

  beforeAll(async () => {
    server = await startServer({ dialect });
    db = openDb(server.db.config);
    const people: Record<Role | "outsider", string> = {
      owner: "olga@acme.test",
      admin: "adam@acme.test",
      member: "mia@acme.test",
      viewer: "vera@acme.test",
      outsider: "bob@globex.test",
    };
    await server.cli("user", "create", "--email", people.owner, "--password", PASSWORD, "--org", "acme");
    await server.cli("user", "create", "--email", people.outsider, "--password", PASSWORD, "--org", "globex");
    for (const role of ["admin", "member", "viewer"] as const)
      await server.cli("user", "create", "--email", people[role], "--password", PASSWORD, "--org", `${role}-home`);
    const acme = await orgId("acme");
    for (const role of ["admin", "member", "viewer"] as const)
      await upsertMember(db.kysely, { orgId: acme, userId: await userId(people[role]), role, now: Date.now() });
    const dsn = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript");
    const project = Number((await db.kysely.selectFrom("projects").select("id").where("slug", "=", "web").executeTakeFirstOrThrow()).id);
    // The member and the viewer are on the team that owns the project, so visibility is not what refuses them.
    // Ids first: SQLite has one connection, so no read outside the write transaction while it runs.
    const onTeam = [await userId(people.member), await userId(people.viewer)];
    await writeTx(db, async (tx) => {
      const team = await insertTeam(tx, { orgId: acme, slug: "web-team", name: "Web", now: Date.now() });
      await setTeamProject(tx, team, project, true);
      for (const id of onTeam) await setTeamMember(tx, team, id, true);
    });
    const orgToken = await token(people.owner, ORG_TOKEN_SCOPES, acme);
    const outsiderOrgToken = await token(people.outsider, ORG_TOKEN_SCOPES, await orgId("globex"));
    for (const role of [...ROLES, "outsider"] as const) {
      const email = people[role];
      actors.push({
        name: `${role} cookie`,
        role,
        credential: { kind: "session" },
        headers: { cookie: await signIn(email), origin: server.url },
      });
      actors.push({
        name: `${role} user token`,
        role,
        credential: { kind: "user-token", scopes: ALL_SCOPES },
        headers: { authorization: `Bearer ${await token(email, ALL_SCOPES, null)}` },
      });
    }
    // One org token per organization (only admins and owners make them; it does CI's work, within its creator's role).
    actors.push({
      name: "acme org token",
      role: "owner",
      credential: { kind: "org-token", scopes: ORG_TOKEN_SCOPES },
      headers: { authorization: `Bearer ${orgToken}` },
    });
    // Org tokens whose creator is now an admin, a member or a viewer (demoted after making it, the
    // issue 39 case): never more than the creator's current role allows, whatever the token is.
    for (const role of ["admin", "member", "viewer"] as const)
      actors.push({
        name: `acme org token made by the ${role}`,
        role,
        credential: { kind: "org-token", scopes: ORG_TOKEN_SCOPES },
        headers: { authorization: `Bearer ${await token(people[role], ORG_TOKEN_SCOPES, acme)}` },
      });
    actors.push({
      name: "outsider org token",
      role: "outsider",
      credential: { kind: "org-token", scopes: ORG_TOKEN_SCOPES },
      headers: { authorization: `Bearer ${outsiderOrgToken}` },
    });
    // Real ids where a route reads one; ids that exist nowhere where an allowed call would destroy
    // the fixture (members, teams), so an allowed cell answers 404 and a refused one 403.
    const ownerToken = actors.find((a) => a.name === "owner user token")?.headers as Record<string, string>;
    await fetch(`${server.url}/api/0/organizations/acme/releases/`, {
      method: "POST",
      headers: { ...ownerToken, "content-type": "application/json" },
      body: JSON.stringify({ version: "1.0.0", projects: ["web"] }),
    });
    Object.assign(values, {
      org: "acme",
      project: "web",
      version: "1.0.0",
      key: new URL(dsn).username,
      issueId: "999999",
      shortId: "NOPE-999999",
      eventId: "0".repeat(32),
      attachmentId: "1",
      replayId: "0".repeat(32),
      segmentId: "0",
      member: "no-such-member",
      team: "no-such-team",
      slug: "no-such-monitor",
      id: "999999",
      channelId: "999999",
      ruleId: "999999",
      path: "no/such/endpoint",
      token: "0".repeat(43),
      traceId: "0".repeat(32),
      itemId: "0".repeat(32),
    });
  }, 300_000);
  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  test("every REST route names its permission", () => {
    expect(routes.length).toBeGreaterThan(40);
    const missing = routes.flatMap((r) => {
      const declared = declaredAccess(r.file);
      return r.methods.filter((m) => !declared[m]).map((m) => `${m} ${r.pattern}`);
    });
    expect(missing, 'routes without apiRoute("<action>", …): name an action of src/server/access/permissions.ts').toEqual([]);
  });

  test("each cell answers what the permission table says", async () => {
    const cells: Cell[] = [];
    const jobs: Array<() => Promise<void>> = [];
    for (const route of routes) {
      const declared = declaredAccess(route.file);
      for (const method of route.methods) {
        const access = declared[method];
        if (!access || access === "public") continue;
        for (const actor of actors) jobs.push(async () => void cells.push(await cell(route, method, access, actor)));
      }
    }
    await runLimited(jobs, 4);

    const failures = cells.filter((c) => c.problem);
    const denied = cells.filter((c) => c.expected === "deny").length;
    console.log(`role matrix (${dialect}): ${cells.length} cells, ${denied} to refuse; ${failures.length} wrong`);
    for (const f of failures.slice(0, 60)) console.log(`  WRONG ${f.what} as ${f.actor}: ${f.problem}`);
    expect(failures.map((f) => `${f.what} as ${f.actor}: ${f.problem}`)).toEqual([]);
  }, 600_000);

  test("SCIM routes answer acme's SCIM token, and refuse globex's and none", async () => {
    const scimRoutes = routes.filter((r) => Object.values(declaredAccess(r.file)).includes("scim"));
    expect(scimRoutes.length).toBeGreaterThanOrEqual(7);
    const secret = (org: string) => `errata_scim_${createHash("sha256").update(`${org}-${dialect}`).digest("base64url")}`;
    for (const org of ["acme", "globex"]) {
      const id = await orgId(org);
      await writeTx(db, (tx) =>
        putScimToken(tx, {
          orgId: id,
          tokenHash: createHash("sha256").update(secret(org)).digest("hex"),
          tokenPrefix: "errata_scim_",
          createdBy: "matrix",
          now: Date.now(),
        }),
      );
    }
    const problems: string[] = [];
    for (const route of scimRoutes) {
      for (const method of route.methods) {
        const url = `${server.url}${fill(route.pattern, { ...values, id: "no-such-id" })}`;
        for (const [who, auth, want] of [
          ["acme's SCIM token", secret("acme"), "through"],
          ["globex's SCIM token", secret("globex"), "refused"],
          ["no token", "", "refused"],
        ] as const) {
          const init: RequestInit = { method, headers: auth ? { authorization: `Bearer ${auth}` } : {} };
          if (method === "POST" || method === "PUT" || method === "PATCH") {
            init.body = "{}";
            (init.headers as Record<string, string>)["content-type"] = "application/scim+json";
          }
          const res = await fetch(url, init);
          const body = await res.text();
          if (res.status >= 500) problems.push(`${method} ${route.pattern} with ${who}: ${res.status} ${body.slice(0, 200)}`);
          else if (want === "through" && (res.status === 401 || res.status === 403))
            problems.push(`${method} ${route.pattern} with ${who}: refused ${res.status}`);
          else if (want === "refused" && res.status !== 401)
            problems.push(`${method} ${route.pattern} with ${who}: ${res.status}, not 401`);
          else if (!/scim\+json/.test(res.headers.get("content-type") ?? "") && res.status !== 204)
            problems.push(`${method} ${route.pattern}: not application/scim+json`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  test("every server action declares its permission", () => {
    expect(actions.length).toBeGreaterThan(30);
    const missing = actions.filter((a) => !declaredActionAccess(ROOT, a)).map((a) => `${a.file}#${a.name}`);
    expect(missing, "server actions without a `// permission: <action>` line right above them").toEqual([]);
  });

  test("each server action, replayed with each role's session, answers what the permission table says", async () => {
    const cookieActors = actors.filter((a) => a.credential.kind === "session");
    expect(cookieActors.map((a) => a.role)).toEqual([...ROLES, "outsider"]);
    const cells: Cell[] = [];
    const jobs: Array<() => Promise<void>> = [];
    for (const action of actions) {
      const access = declaredActionAccess(ROOT, action);
      if (!access || NOT_REPLAYED[action.name]) continue;
      for (const actor of cookieActors) jobs.push(async () => void cells.push(await actionCell(action, access, actor)));
    }
    await runLimited(jobs, 4);
    const failures = cells.filter((c) => c.problem);
    const denied = cells.filter((c) => c.expected === "deny").length;
    console.log(
      `role matrix, server actions (${dialect}): ${cells.length} cells (${actions.length - Object.keys(NOT_REPLAYED).length} of ${actions.length} actions replayed × ${cookieActors.length} sessions), ${denied} to refuse; ${failures.length} wrong`,
    );
    for (const f of failures.slice(0, 60)) console.log(`  WRONG ${f.what} as ${f.actor}: ${f.problem}`);
    expect(failures.map((f) => `${f.what} as ${f.actor}: ${f.problem}`)).toEqual([]);
  }, 300_000);

  /** Arguments reaching the service: acme's names, ids that exist nowhere, confirmations that match. */
  function actionArgs(action: ServerAction): unknown[] {
    if (action.params.length === 2 && action.params[1] === "data") {
      const data = new FormData();
      const fields: Record<string, string> = {
        org: "acme",
        project: "web",
        replayId: "0".repeat(32),
        slug: "no-such-monitor",
        keyId: "999999",
        channelId: "999999",
        ruleId: "999999",
        deliveryId: "999999",
        invitationId: "999999",
        tokenId: "999999",
        userId: "no-such-user",
        team: "no-such-team",
        confirm: "no-such-team",
        label: "matrix",
        op: "revoke",
        kind: "member",
        value: "no-such-user",
        email: "nobody@matrix.test",
        role: "member",
        section: "retention",
        retentionDays: "1",
        name: "matrix",
        platform: "node",
        active: "true",
        current: "wrong password!!",
        next: "another long password",
      };
      for (const [k, val] of Object.entries({ ...fields, ...FIELD_OVERRIDES[action.name] })) data.set(k, val);
      return [{ status: "idle" }, data];
    }
    const monitorForm = new FormData();
    for (const [k, val] of Object.entries({ org: "acme", slug: "no-such-monitor", change: "pause" })) monitorForm.set(k, val);
    const byName: Record<string, unknown> = {
      orgSlug: "acme",
      issueIds: [999999, 999998],
      issueId: 999999,
      text: "matrix comment",
      body: { status: "resolved" },
      others: "999998",
      "primaryId?": 999999,
      hash: "0".repeat(32),
      form: monitorForm,
      minutes: 60,
      org: "acme",
      project: "web",
      draft: { fingerprintingRules: "", groupingEnhancements: "" },
      url: "https://github.com/acme/web/issues/1",
      runId: "999999",
    };
    return action.params.map((p) => {
      if (!(p in byName)) throw new Error(`no value for parameter ${p} of server action ${action.name}: add it to the role matrix`);
      return byName[p];
    });
  }

  async function actionCell(action: ServerAction, access: Exclude<Declared, "public" | "scim">, actor: Actor): Promise<Cell> {
    const url = fill(action.pagePattern, { ...values, slug: "web" });
    const encoded = await encodeReply(actionArgs(action));
    const headers: Record<string, string> = { ...actor.headers, "next-action": action.id, accept: "text/x-component" };
    if (typeof encoded === "string") headers["content-type"] = "text/plain;charset=UTF-8";
    const res = await fetch(`${server.url}${url}`, { method: "POST", headers, body: encoded, redirect: "manual" });
    const body = `${res.headers.get("x-action-redirect") ?? ""}\n${await res.text()}`;
    const expected = expectation(access, actor);
    const what = `action ${action.name} (${access})`;
    let problem: string | null = null;
    if (res.status >= 500) problem = `answered ${res.status}: ${body.slice(0, 200)}`;
    else if (expected === "allow" && REFUSAL.test(body)) problem = `refused but the table allows it: ${body.slice(0, 200)}`;
    else if (expected === "deny" && SUCCESS.test(body)) problem = `succeeded but the table refuses it: ${body.slice(0, 200)}`;
    else if (expected === "deny" && !REFUSAL.test(body) && !(actor.role === "outsider" && /not.found|not_found/i.test(body)))
      problem = `not refused (the table refuses it): ${body.slice(0, 300)}`;
    return { what, actor: actor.name, expected, status: res.status, problem };
  }

  async function cell(route: HttpRoute, method: string, access: Exclude<Declared, "public">, actor: Actor): Promise<Cell> {
    let url = fill(route.pattern, { ...values, ...(DESTRUCTIVE[`${method} ${route.pattern}`] ?? {}) });
    if (url.startsWith("/api/0/")) url += "/";
    const init: RequestInit = { method, redirect: "manual", headers: { ...actor.headers } };
    if (method !== "GET") {
      init.body = "{}";
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const res = await fetch(`${server.url}${url}`, init);
    const body = await res.text();
    const expected = expectation(access, actor);
    const what = `${method} ${route.pattern} (${access})`;
    let problem: string | null = null;
    if (res.status >= 500) problem = `answered ${res.status}: ${body.slice(0, 200)}`;
    else if (expected === "allow" && (res.status === 401 || res.status === 403))
      problem = `refused (${res.status}) but the table allows it: ${body.slice(0, 200)}`;
    else if (
      expected === "deny" &&
      actor.role === "outsider" &&
      res.status !== 403 &&
      res.status !== 404 &&
      !(access === "scim" && res.status === 401)
    )
      problem = `the outsider got ${res.status}`;
    else if (expected === "deny" && actor.role !== "outsider" && res.status !== 403 && !(access === "scim" && res.status === 401))
      problem = `answered ${res.status} but the table refuses it: ${body.slice(0, 200)}`;
    return { what, actor: actor.name, expected, status: res.status, problem };
  }
});

function expectation(access: Exclude<Declared, "public">, actor: Actor): "allow" | "deny" {
  if (access === "signed-in") return "allow";
  if (access === "scim") return "deny"; // no person's credential opens SCIM
  if (actor.role === "outsider") return "deny";
  return permits(actor.role, actor.credential, access) ? "allow" : "deny";
}

async function runLimited(jobs: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++] as () => Promise<void>;
      await job();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}
