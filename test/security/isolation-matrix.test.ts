/**
 * The tenant-isolation matrix (issue 9), on SQLite and PostgreSQL against the built server:
 *
 *   every page, route handler (× each method it exports) and server action discovered from the
 *   file system (test/security/route-table.ts)
 * × actor: anonymous, owner, admin, member, viewer, the other organization's owner, tokens of both
 *   owners with each single scope
 * × target: the owner's organization ("acme"), the other org's own slug with acme's ids, and a
 *   project of acme's that is on no team of the member ("hiddenweb")
 *
 * judged by GENERIC rules per route class, so routes added later are covered without entries:
 *
 *  - anonymous, any route not listed as public: 401/403/404 or a redirect to /login;
 *  - a route with an [org] segment reached by the other org's owner or tokens through acme's slug:
 *    refused (4xx, or /login for a token on a page); through their own slug with acme's ids
 *    (issue, event, key ids): whatever the status, the body holds none of acme's identifying data
 *    (issue title, comment, DSN key, owner's email) — that leak check runs on every foreign cell —
 *    and acme's data is unchanged afterwards;
 *  - a viewer (SPEC §6) mutates nothing: every non-GET method and server action is refused;
 *  - a member reaching the project outside their teams, by every route, method and action with its
 *    slug and ids: the body holds none of that project's data and its data is unchanged after;
 *    the admin reads it (admins see every project);
 *  - server actions are replayed by id (Next-Action) with acme's ids: never a success;
 *  - no cell answers 5xx (bad input is a catalogued 4xx); own reads succeed (so the refusals
 *    above are not an artefact of wrong parameters).
 *
 * After the attack phases acme's data is checked unchanged. Only deliberately public routes are
 * named (PUBLIC).
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TOKEN_SCOPES } from "../../src/core/token-scopes.js";
import { type Db, openDb } from "../../src/storage/db.js";
import { writeTx } from "../../src/storage/dialect.js";
import { insertTeam, setTeamMember, setTeamProject } from "../../src/storage/members/teams.js";
import { insertToken } from "../../src/storage/members/tokens.js";
import { upsertMember } from "../../src/storage/orgs/orgs.js";
import { postEnvelope, segmentEnvelope } from "../helpers/replay-envelopes.js";
import { sendTraceEnvelope } from "../helpers/sdk-trace.js";
import { eventually, ROOT, startServer, type TestServer } from "../helpers/server.js";
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
const SCOPES: string[] = [...TOKEN_SCOPES];
/** Deliberately public routes, by name: everything else must refuse an anonymous caller. */
const PUBLIC = new Set([
  "/login",
  "/setup",
  "/api/setup",
  "/api/auth/[...all]",
  "/debug/throw",
  "/invite/[token]",
  "/api/invite/[token]",
  // Single sign-on: start at the provider and come back from it (the state cookie binds the two).
  "/forgot-password",
  "/reset-password/[token]",
  "/known-device/[token]",
  "/api/password-reset",
  "/api/password-reset/[token]",
  "/api/sso/[org]/start",
  "/api/sso/[org]/callback",
  // SAML: the identity provider's page posts the signed response; identity providers read the SP metadata.
  "/api/sso/[org]/saml/acs",
  "/api/sso/[org]/saml/metadata",
]);

/** Reads only owners may make (the permission table's `audit.read`): an admin's 403 there is the rule, not a failure. */
const OWNER_ONLY_READS = new Set(["/api/0/organizations/[org]/audit-logs"]);

/**
 * SCIM routes (`scimRoute(…)`, issue 42) authenticate with the organization's SCIM token alone:
 * every actor here — acme's own members included — is refused them (401), and nothing leaks.
 */
function scimOnly(route: HttpRoute): boolean {
  return route.kind === "route" && /export\s+const\s+\w+\s*=\s*scimRoute\b/.test(fs.readFileSync(route.file, "utf8"));
}
/** Server actions on the caller's own account, never on an organization's data (anonymous callers only reach /login). */
const SELF_SERVICE = new Set([
  "renameAction",
  "signOutEverywhereAction",
  "changePasswordAction",
  "createPersonalTokenAction",
  "revokePersonalTokenAction",
  "revokeAllPersonalTokensAction",
  // the weekly summary email switch (issue 30): the caller's own, for every organization
  "weeklySummaryAction",
]);
/** A member's own preference for a project of their organization (any role may set it). */
const OWN_PREFERENCE = new Set(["emailOptOutAction"]);
const REFUSED = new Set([400, 401, 403, 404, 405, 409, 413, 415, 422]);
const SECRET_EMAIL = "alice@acme-secret.test";

type Actor = {
  name: string;
  side: "acme" | "globex" | "anonymous";
  cookie?: string;
  token?: string;
  role?: "owner" | "admin" | "member" | "viewer";
};
type Target = { name: "acme" | "globex-slug+acme-ids" | "acme-hidden-project"; values: Record<string, string> };
interface Cell {
  what: string;
  actor: string;
  target: string;
  status: number;
  problem: string | null;
}

/**
 * Routes whose call by the other org through its own slug would destroy its fixture (deleting its
 * project): aimed at a project that does not exist there. Refusals are judged the same.
 */
const DESTRUCTIVE: Record<string, Record<string, string>> = {
  "DELETE /api/0/projects/[org]/[project]": { project: "no-such-project" },
};

function orgScoped(pattern: string): boolean {
  return pattern.includes("[org]");
}

function isLoginRedirect(res: Response): boolean {
  return res.status >= 300 && res.status < 400 && /\/login/.test(res.headers.get("location") ?? "");
}

describe.each(await dialects())("tenant isolation matrix on %s", (dialect) => {
  let server: TestServer;
  let db: Db;
  const routes = discoverRoutes(APP_DIR);
  const actions = discoverActions(ROOT);
  const actors: Actor[] = [];
  const markers: string[] = ["ACMESECRET", SECRET_EMAIL];
  let acme: Target;
  let mixed: Target;
  let hidden: Target;
  /** What only the hidden project holds: its issue title marker and its DSN key. */
  const hiddenMarkers: string[] = ["HIDDENSECRET"];
  let fixtureToken = "";
  let acmeKeyLabel = "Default";
  const cells: Cell[] = [];

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

  async function makeToken(userEmail: string, scopes: string[]): Promise<string> {
    const user = await db.kysely
      .selectFrom("user" as never)
      .select("id" as never)
      .where("email" as never, "=", userEmail as never)
      .executeTakeFirstOrThrow();
    const token = `errata_${randomBytes(24).toString("base64url")}`;
    await insertToken(db, {
      userId: (user as { id: string }).id,
      orgId: null,
      name: `matrix ${scopes.join(",")}`,
      tokenHash: createHash("sha256").update(token).digest("hex"),
      tokenPrefix: token.slice(0, 12),
      scopes,
      now: Date.now(),
    });
    return token;
  }

  async function api<T>(urlPath: string, init: RequestInit = {}): Promise<T> {
    const res = await fetch(`${server.url}/api/0/${urlPath}`, {
      ...init,
      headers: { authorization: `Bearer ${fixtureToken}`, "content-type": "application/json", ...(init.headers ?? {}) },
    });
    return (await res.json()) as T;
  }

  function authHeaders(actor: Actor): Record<string, string> {
    if (actor.cookie) return { cookie: actor.cookie, origin: server.url };
    if (actor.token) return { authorization: `Bearer ${actor.token}` };
    return {};
  }

  function leaked(body: string, url: string, secrets: string[] = markers): string | null {
    const lower = url.toLowerCase();
    const hit = secrets.find((m) => !lower.includes(m.toLowerCase()) && body.toLowerCase().includes(m.toLowerCase()));
    return hit ? `body contains acme's "${hit}"` : null;
  }

  /** A member outside the hidden project's teams: nothing of it in any answer, whatever the status. */
  function memberOutsideTeams(actor: Actor, target: Target): boolean {
    return actor.role === "member" && target.name === "acme-hidden-project";
  }

  function judgeHttp(
    route: HttpRoute,
    method: string,
    actor: Actor,
    target: Target,
    res: Response,
    body: string,
    url: string,
  ): string | null {
    if (res.status >= 500) return `answered ${res.status}`;
    if (memberOutsideTeams(actor, target)) return leaked(body, url, hiddenMarkers);
    const isPublic = PUBLIC.has(route.pattern);
    const foreign = actor.side === "globex" || actor.side === "anonymous";
    const leak = foreign ? leaked(body, url) : null;
    if (leak) return leak;
    if (isPublic) return null;
    if (scimOnly(route))
      return res.status === 401 ? null : `SCIM route answered ${res.status} to ${actor.name} (only the SCIM token opens it)`;
    if (actor.side === "anonymous") {
      return REFUSED.has(res.status) || isLoginRedirect(res) ? null : `anonymous got ${res.status}`;
    }
    if (actor.side === "globex") {
      // Through its own slug the other org may read its own data (digests, release versions are
      // its own namespace): there the leak check and acme's unchanged state are the rule.
      if (!orgScoped(route.pattern) || target.name !== "acme") return null;
      if (REFUSED.has(res.status) || isLoginRedirect(res)) return null;
      return `other org's ${actor.name} got ${res.status} for ${target.name}`;
    }
    // acme's own actors.
    if (method !== "GET") {
      if (actor.role === "viewer") return res.status >= 400 ? null : `viewer's ${method} answered ${res.status}`;
      return null;
    }
    // Own reads work (else the refusals above could be an artefact of wrong parameters); a viewer
    // may be refused what prepares a write (chunk-upload options), never signed out.
    const refused =
      res.status === 401 ||
      isLoginRedirect(res) ||
      (res.status === 403 && (actor.role === "owner" || (actor.role === "admin" && !OWNER_ONLY_READS.has(route.pattern))));
    if (actor.cookie && refused) return `own ${actor.name} refused (${res.status})`;
    return null;
  }

  const MUTATION_BODY = JSON.stringify({
    text: "pwned comment",
    status: "resolved",
    version: "pwned@1.0.0",
    projects: ["secretweb", "gweb"],
    name: "pwned",
    chunks: [],
    checksum: "0".repeat(40),
  });

  async function httpCell(route: HttpRoute, method: string, actor: Actor, target: Target): Promise<void> {
    let url = fill(route.pattern, { ...target.values, ...(DESTRUCTIVE[`${method} ${route.pattern}`] ?? {}) });
    if (url.startsWith("/api/0/")) url += "/";
    if (route.pattern === "/[org]/issues/suggest") url += "?q=is:";
    const init: RequestInit = { method, redirect: "manual", headers: { ...authHeaders(actor) } };
    if (method !== "GET") {
      init.body = MUTATION_BODY;
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const controller = new AbortController();
    init.signal = controller.signal;
    const res = await fetch(`${server.url}${url}`, init);
    // Live streams never end: read what the first chunk says, then hang up.
    const body = res.headers.get("content-type")?.includes("event-stream") ? await firstChunk(res, controller) : await res.text();
    const problem = judgeHttp(route, method, actor, target, res, body, url);
    cells.push({ what: `${method} ${route.pattern}`, actor: actor.name, target: target.name, status: res.status, problem });
  }

  /** The monitor page's plain form post (mute/pause), aimed at the target's org. */
  function monitorForm(v: Record<string, string>): FormData {
    const data = new FormData();
    for (const [k, val] of Object.entries({ org: v.org as string, slug: v.slug as string, change: "pause" })) data.set(k, val);
    return data;
  }

  function actionArgs(action: ServerAction, t: Target): unknown[] {
    const v = t.values;
    if (action.params.length === 2 && action.params[1] === "data") {
      const data = new FormData();
      const fields: Record<string, string> = {
        org: v.org as string,
        project: v.project as string,
        replayId: v.replayId as string,
        keyId: v.keyId as string,
        label: "pwned",
        op: "disable",
        confirm: acmeKeyLabel,
        section: "retention",
        retentionDays: "1",
        name: "pwned",
        platform: "node",
        active: "true",
      };
      for (const [k, val] of Object.entries(fields)) data.set(k, val);
      return [{ status: "idle" }, data];
    }
    const byName: Record<string, unknown> = {
      orgSlug: v.org,
      issueIds: [Number(v.id), Number(v.id2)],
      issueId: Number(v.id),
      text: "pwned comment",
      body: { status: "resolved" },
      others: v.id2,
      "primaryId?": Number(v.id),
      hash: "0".repeat(32),
      form: monitorForm(v),
      minutes: 60,
      org: v.org,
      project: v.project,
      draft: { fingerprintingRules: "", groupingEnhancements: "" },
      // an import run's id (issue 32): another organization's run is "not found"
      runId: String(v.id),
      // linking a tracker issue (issue 30)
      url: "https://github.com/evil/repo/issues/1",
    };
    return action.params.map((p) => {
      if (!(p in byName)) throw new Error(`no value for parameter ${p} of server action ${action.name}: add it to the matrix`);
      return byName[p];
    });
  }

  async function actionCell(action: ServerAction, actor: Actor, target: Target): Promise<void> {
    const url = fill(action.pagePattern, target.values);
    const encoded = await encodeReply(actionArgs(action, target));
    const headers: Record<string, string> = { ...authHeaders(actor), "next-action": action.id, accept: "text/x-component" };
    if (typeof encoded === "string") headers["content-type"] = "text/plain;charset=UTF-8";
    const res = await fetch(`${server.url}${url}`, { method: "POST", headers, body: encoded, redirect: "manual" });
    const body = await res.text();
    let problem: string | null = null;
    if (res.status >= 500) problem = `answered ${res.status}`;
    // Through acme's slug nothing may succeed; through the actor's own slug an action may succeed
    // on the actor's own data — whether acme's ids were touched is checked by acme's state after.
    else if (
      target.name === "acme" &&
      // A redirect counts as success unless it goes to the page saying "refused" (monitors do).
      (/"ok":true|"status":"ok"/.test(body) || /^(?!.*[?&]refused=)./.test(res.headers.get("x-action-redirect") ?? "")) &&
      !SELF_SERVICE.has(action.name) &&
      !(OWN_PREFERENCE.has(action.name) && actor.side === "acme")
    )
      problem = "the action succeeded";
    // acme's own members may see acme's data; everyone else must not.
    else if (actor.side !== "acme") problem = leaked(body, url);
    // …except a member, the project outside their teams.
    else if (memberOutsideTeams(actor, target)) problem = leaked(body, url, hiddenMarkers);
    cells.push({ what: `action ${action.name}`, actor: actor.name, target: target.name, status: res.status, problem });
  }

  async function acmeState() {
    const issues = [
      ...(await api<Array<{ id: string; status: string }>>("projects/acme/secretweb/issues/?query=")),
      ...(await api<Array<{ id: string; status: string }>>("projects/acme/hiddenweb/issues/?query=")),
    ];
    const comments = [
      ...(await api<Array<{ data: { text: string } }>>(`organizations/acme/issues/${acme.values.id}/comments/`)),
      ...(await api<Array<{ data: { text: string } }>>(`organizations/acme/issues/${hidden.values.id}/comments/`)),
    ];
    // Only acme's rows: globex's owner may legitimately change globex through the mixed target.
    const org = await db.kysely.selectFrom("organizations").select("id").where("slug", "=", "acme").executeTakeFirstOrThrow();
    const keys = await db.kysely
      .selectFrom("project_keys")
      .innerJoin("projects", "projects.id", "project_keys.project_id")
      .select(["project_keys.public_key", "project_keys.label", "project_keys.active"])
      .where("projects.org_id", "=", org.id)
      .orderBy("project_keys.id")
      .execute();
    const projects = await db.kysely
      .selectFrom("projects")
      .select(["slug", "settings"])
      .where("org_id", "=", org.id)
      .orderBy("id")
      .execute();
    const members = await db.kysely
      .selectFrom("members")
      .select(["org_id", "user_id", "role"])
      .where("org_id", "=", org.id)
      .orderBy("user_id")
      .execute();
    // Issue 30: tracker links, CODEOWNERS files and the organization's external names.
    const links = await db.kysely.selectFrom("issue_links").select(["issue_id", "url"]).orderBy("issue_id").execute();
    const codeowners = await db.kysely
      .selectFrom("project_codeowners")
      .innerJoin("projects", "projects.id", "project_codeowners.project_id")
      .select(["project_codeowners.raw"])
      .where("projects.org_id", "=", org.id)
      .execute();
    const names = await db.kysely.selectFrom("external_names").select("external_name").where("org_id", "=", org.id).execute();
    return {
      links: links.map((l) => `${l.issue_id}:${l.url}`),
      codeowners: codeowners.map((c) => c.raw),
      externalNames: names.map((n) => n.external_name),
      issues: issues.map((i) => `${i.id}:${i.status}`).sort(),
      comments: comments.map((c) => c.data.text).sort(),
      keys: keys.map((k) => `${k.public_key}:${k.label}:${Number(k.active)}`),
      projects: projects.map((p) => `${p.slug}:${JSON.stringify(p.settings)}`),
      members: members.map((m) => `${m.org_id}:${m.user_id}:${m.role}`),
    };
  }

  /** The hidden project's own data: its issues' states, its issue's comments, its keys and settings. */
  async function hiddenState() {
    const project = await db.kysely
      .selectFrom("projects")
      .select(["id", "settings"])
      .where("slug", "=", "hiddenweb")
      .executeTakeFirstOrThrow();
    const keys = await db.kysely
      .selectFrom("project_keys")
      .select(["public_key", "label", "active"])
      .where("project_id", "=", project.id)
      .orderBy("id")
      .execute();
    const issues = await db.kysely
      .selectFrom("issues")
      .select(["id", "status", "assignee_user_id"])
      .where("project_id", "=", project.id)
      .execute();
    const comments = await db.kysely
      .selectFrom("activity")
      .select(["kind", "data"])
      .where("issue_id", "=", Number(hidden.values.id))
      .orderBy("id")
      .execute();
    const mutes = await db.kysely.selectFrom("alert_mutes").selectAll().where("issue_id", "=", Number(hidden.values.id)).execute();
    const link = await db.kysely.selectFrom("issue_links").select("url").where("issue_id", "=", Number(hidden.values.id)).execute();
    return {
      link: link.map((l) => l.url),
      mutes: mutes.map((m) => JSON.stringify(m)),
      settings: JSON.stringify(project.settings),
      keys: keys.map((k) => `${k.public_key}:${k.label}:${Number(k.active)}`),
      issues: issues.map((i) => `${i.id}:${i.status}:${i.assignee_user_id}`).sort(),
      activity: comments.map((c) => `${c.kind}:${JSON.stringify(c.data)}`),
    };
  }

  beforeAll(async () => {
    server = await startServer({ dialect });
    db = openDb(server.db.config);
    await server.cli("user", "create", "--email", SECRET_EMAIL, "--password", PASSWORD, "--org", "acme");
    await server.cli("user", "create", "--email", "bob@globex.test", "--password", PASSWORD, "--org", "globex");
    await server.cli("user", "create", "--email", "vera@viewer.test", "--password", PASSWORD, "--org", "vera-home");
    await server.cli("user", "create", "--email", "mia@member.test", "--password", PASSWORD, "--org", "mia-home");
    await server.cli("user", "create", "--email", "adam@admin.test", "--password", PASSWORD, "--org", "adam-home");
    const acmeOrg = await db.kysely.selectFrom("organizations").select("id").where("slug", "=", "acme").executeTakeFirstOrThrow();
    const vera = await db.kysely
      .selectFrom("user" as never)
      .select("id" as never)
      .where("email" as never, "=", "vera@viewer.test" as never)
      .executeTakeFirstOrThrow();
    const userId = async (email: string) =>
      (
        (await db.kysely
          .selectFrom("user" as never)
          .select("id" as never)
          .where("email" as never, "=", email as never)
          .executeTakeFirstOrThrow()) as { id: string }
      ).id;
    const orgId = Number(acmeOrg.id);
    await upsertMember(db.kysely, { orgId, userId: (vera as { id: string }).id, role: "viewer", now: Date.now() });
    await upsertMember(db.kysely, { orgId, userId: await userId("mia@member.test"), role: "member", now: Date.now() });
    await upsertMember(db.kysely, { orgId, userId: await userId("adam@admin.test"), role: "admin", now: Date.now() });
    const dsnA = await server.cli("project", "create", "--org", "acme", "--name", "secretweb", "--platform", "javascript");
    const dsnB = await server.cli("project", "create", "--org", "globex", "--name", "gweb", "--platform", "javascript");
    const dsnH = await server.cli("project", "create", "--org", "acme", "--name", "hiddenweb", "--platform", "javascript");
    markers.push(new URL(dsnA).username);
    hiddenMarkers.push(new URL(dsnH).username);
    // Nobody outside acme sees the hidden project either.
    markers.push(...hiddenMarkers);
    // Teams: "web" owns secretweb (the member and the viewer are on it), "ops" owns hiddenweb.
    const projectId = async (slug: string) =>
      Number((await db.kysely.selectFrom("projects").select("id").where("slug", "=", slug).executeTakeFirstOrThrow()).id);
    const [secretId, hiddenId] = [await projectId("secretweb"), await projectId("hiddenweb")];
    const [miaId, veraId] = [await userId("mia@member.test"), (vera as { id: string }).id];
    await writeTx(db, async (tx) => {
      const web = await insertTeam(tx, { orgId, slug: "web", name: "Web", now: Date.now() });
      const ops = await insertTeam(tx, { orgId, slug: "ops", name: "Ops", now: Date.now() });
      await setTeamProject(tx, web, secretId, true);
      await setTeamProject(tx, ops, hiddenId, true);
      await setTeamMember(tx, web, miaId, true);
      await setTeamMember(tx, web, veraId, true);
    });
    await server.cli("send-test-event", "--dsn", dsnH, "--message", "HIDDENSECRET ops-only failure");
    await server.cli("send-test-event", "--dsn", dsnA, "--message", "ACMESECRET first failure");
    // Session replays (issue 40): acme's and the hidden project's, their secrets in the URLs they visited.
    const replayA = crypto.randomUUID().replace(/-/g, "");
    const replayH = crypto.randomUUID().replace(/-/g, "");
    const t0 = Date.now() - 10_000;
    await postEnvelope(new URL(dsnA), segmentEnvelope(replayA, 0, t0, { start: t0, urls: ["https://acme.example/ACMESECRET"] }));
    await postEnvelope(new URL(dsnH), segmentEnvelope(replayH, 0, t0, { start: t0, urls: ["https://acme.example/HIDDENSECRET"] }));
    await server.cli("send-test-event", "--dsn", dsnB, "--message", "globex own failure");
    fixtureToken = await makeToken(SECRET_EMAIL, SCOPES);
    const issues = await eventually(
      async () => {
        const list = await api<Array<{ id: string }>>("projects/acme/secretweb/issues/?query=");
        return list.length >= 1 ? list : undefined;
      },
      30_000,
      "acme's issues",
    );
    const i1 = (issues[0] as { id: string }).id;
    // Merge actions need a second id: the globex issue (a foreign id within the same call).
    const globexIssue = await eventually(
      () => db.kysely.selectFrom("issues").select("id").where("title", "like", "%globex own failure%").executeTakeFirst(),
      30_000,
      "globex's issue",
    );
    const i2 = String(globexIssue.id);
    const hiddenIssue = await eventually(
      () => db.kysely.selectFrom("issues").select("id").where("title", "like", "%HIDDENSECRET%").executeTakeFirst(),
      30_000,
      "the hidden project's issue",
    );
    const ih = String(hiddenIssue.id);
    const hiddenLatest = await api<{ eventID?: string; id?: string }>(`organizations/acme/issues/${ih}/events/latest/`);
    await eventually(
      async () => (await db.kysely.selectFrom("replays").select("id").where("replay_id", "in", [replayA, replayH]).execute()).length === 2,
      30_000,
      "both replays",
    );
    const hiddenKey = await db.kysely.selectFrom("project_keys").select("id").where("project_id", "=", hiddenId).executeTakeFirstOrThrow();
    const latest = await api<{ eventID?: string; id?: string }>(`organizations/acme/issues/${i1}/events/latest/`);
    // Short ids stand wherever an issue id does (issue 28): acme's own, and the hidden project's.
    const shortOf = async (id: string) => (await api<{ shortId: string }>(`organizations/acme/issues/${id}/`)).shortId;
    const [shortId, hiddenShortId] = [await shortOf(i1), await shortOf(ih)];
    // A trace in each acme project (spans, a log, an error naming its marker): the trace routes' ids.
    const traceOf = async (dsn: string, marker: string) => {
      const t = await sendTraceEnvelope(new URL(dsn), marker);
      const log = await eventually(
        async () => (await api<{ data: Array<{ id: string }> }>(`organizations/acme/trace-logs/?traceId=${t.traceId}`)).data[0]?.id,
        30_000,
        `${marker}'s trace`,
      );
      return { traceId: t.traceId, itemId: log };
    };
    const [acmeTrace, hiddenTrace] = [await traceOf(dsnA, "ACMESECRET"), await traceOf(dsnH, "HIDDENSECRET")];
    await api("organizations/acme/releases/", { method: "POST", body: JSON.stringify({ version: "relx-9.9.9", projects: ["secretweb"] }) });
    await api(`organizations/acme/issues/${i1}/comments/`, { method: "POST", body: JSON.stringify({ text: "ACMESECRET comment" }) });
    const key = await db.kysely.selectFrom("project_keys").select(["id", "label"]).orderBy("id").executeTakeFirstOrThrow();
    acmeKeyLabel = key.label;
    const common = {
      eventId: String(latest.eventID ?? latest.id),
      version: "relx-9.9.9",
      digest: "1234567890",
      attachmentId: "1",
      segmentId: "0",
      all: "session",
      // Routes added by the team, alerts, monitors and compatibility work: ids that exist in
      // neither org or acme's own, so a foreign actor can only ever learn "not found".
      path: "no/such/endpoint",
      channelId: "1",
      ruleId: "1",
      member: "1",
      team: "secretweb",
      key: "environment",
      token: "0".repeat(43),
    };
    acme = {
      name: "acme",
      values: {
        org: "acme",
        slug: "secretweb",
        project: "secretweb",
        id: i1,
        id2: i2,
        issueId: i1,
        shortId,
        keyId: String(key.id),
        ...common,
        replayId: replayA,
        ...acmeTrace,
      },
    };
    hidden = {
      name: "acme-hidden-project",
      values: {
        org: "acme",
        slug: "hiddenweb",
        project: "hiddenweb",
        id: ih,
        id2: ih,
        issueId: ih,
        shortId: hiddenShortId,
        keyId: String(hiddenKey.id),
        ...common,
        eventId: String(hiddenLatest.eventID ?? hiddenLatest.id),
        team: "hiddenweb",
        replayId: replayH,
        ...hiddenTrace,
      },
    };
    mixed = {
      name: "globex-slug+acme-ids",
      values: {
        org: "globex",
        slug: "gweb",
        project: "gweb",
        id: i1,
        id2: i2,
        issueId: i1,
        shortId,
        keyId: String(key.id),
        ...common,
        replayId: replayA,
        ...acmeTrace,
      },
    };
    actors.push({ name: "anonymous", side: "anonymous" });
    actors.push({ name: "acme owner", side: "acme", role: "owner", cookie: await signIn(SECRET_EMAIL) });
    actors.push({ name: "acme viewer", side: "acme", role: "viewer", cookie: await signIn("vera@viewer.test") });
    actors.push({ name: "acme member", side: "acme", role: "member", cookie: await signIn("mia@member.test") });
    actors.push({ name: "acme admin", side: "acme", role: "admin", cookie: await signIn("adam@admin.test") });
    actors.push({ name: "globex owner", side: "globex", role: "owner", cookie: await signIn("bob@globex.test") });
    for (const scope of SCOPES) {
      actors.push({ name: `acme token ${scope}`, side: "acme", token: await makeToken(SECRET_EMAIL, [scope]) });
      actors.push({ name: `globex token ${scope}`, side: "globex", token: await makeToken("bob@globex.test", [scope]) });
    }
  }, 300_000);
  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  test("no cell leaks: routes × actors × targets, and server actions replayed with foreign ids", async () => {
    expect(routes.length).toBeGreaterThan(30);
    expect(actions.length).toBeGreaterThan(5);
    const before = await acmeState();

    // Phase 1: reads by everyone, attacks by anonymous and the other org (acme's data must survive).
    const jobs: Array<() => Promise<void>> = [];
    for (const route of routes) {
      for (const method of route.methods) {
        for (const actor of actors) {
          const own = actor.side === "acme";
          if (own && method !== "GET") continue; // acme's own writes are phase 2 (viewer) or legitimate
          for (const target of own ? [acme] : [acme, mixed]) jobs.push(() => httpCell(route, method, actor, target));
        }
      }
    }
    for (const action of actions) {
      for (const actor of actors.filter((a) => a.side !== "acme" && (a.cookie || a.side === "anonymous"))) {
        for (const target of [acme, mixed]) jobs.push(() => actionCell(action, actor, target));
      }
    }
    await runLimited(jobs, 4);
    expect(await acmeState()).toEqual(before);

    // Phase 2: the viewer tries every mutation on its own org.
    const viewer = actors.find((a) => a.role === "viewer") as Actor;
    const viewerJobs: Array<() => Promise<void>> = [];
    for (const route of routes) {
      for (const method of route.methods.filter((m) => m !== "GET")) viewerJobs.push(() => httpCell(route, method, viewer, acme));
    }
    for (const action of actions) viewerJobs.push(() => actionCell(action, viewer, acme));
    await runLimited(viewerJobs, 2);

    // Controls: the replay reaches a real action (the owner's own comment succeeds) and the markers
    // do render for the owner — so "refused" and "no marker" above are meaningful.
    const owner = actors.find((a) => a.role === "owner" && a.side === "acme") as Actor;
    const comment = actions.find((a) => a.name === "commentOnIssue") as ServerAction;
    const replay = await fetch(`${server.url}${fill(comment.pagePattern, acme.values)}`, {
      method: "POST",
      headers: { ...authHeaders(owner), "next-action": comment.id, "content-type": "text/plain;charset=UTF-8" },
      body: (await encodeReply(["acme", Number(acme.values.id), "owner control comment"])) as string,
    });
    expect(await replay.text()).toContain('"ok":true');
    const issuePage = await fetch(`${server.url}/acme/issues/${acme.values.id}`, { headers: authHeaders(owner) });
    expect(await issuePage.text()).toContain("ACMESECRET");

    expect(await acmeState()).toEqual({ ...before, comments: [...before.comments, "owner control comment"].sort() });

    // Phase 3: the member, on the acme project outside their teams, by every route, method and
    // action (its data must not show and must not change; their own projects may legitimately
    // change, so this runs last); the admin reads it.
    const member = actors.find((a) => a.role === "member") as Actor;
    const admin = actors.find((a) => a.role === "admin") as Actor;
    const hiddenBefore = await hiddenState();
    const hiddenJobs: Array<() => Promise<void>> = [];
    for (const route of routes) {
      for (const method of route.methods) hiddenJobs.push(() => httpCell(route, method, member, hidden));
      if (route.methods.includes("GET")) hiddenJobs.push(() => httpCell(route, "GET", admin, hidden));
    }
    for (const action of actions) hiddenJobs.push(() => actionCell(action, member, hidden));
    await runLimited(hiddenJobs, 2);
    expect(await hiddenState()).toEqual(hiddenBefore);
    // Control: the admin's issue page does show the hidden project's issue.
    const adminPage = await fetch(`${server.url}/acme/issues/${hidden.values.id}`, { headers: authHeaders(admin) });
    expect(await adminPage.text()).toContain("HIDDENSECRET");

    const failures = cells.filter((c) => c.problem);
    const byActor = new Set(cells.map((c) => c.actor)).size;
    console.log(
      `isolation matrix (${dialect}): ${cells.length} cells — ${routes.length} routes (${routes.reduce((n, r) => n + r.methods.length, 0)} route×method) + ${actions.length} server actions × ${byActor} actors × up to 2 targets; ${failures.length} leaking`,
    );
    for (const f of failures.slice(0, 40)) console.log(`  LEAK ${f.what} as ${f.actor} → ${f.target}: ${f.problem} (HTTP ${f.status})`);
    expect(failures.map((f) => `${f.what} as ${f.actor} → ${f.target}: ${f.problem}`)).toEqual([]);
  }, 900_000);
});

async function firstChunk(res: Response, controller: AbortController): Promise<string> {
  const reader = res.body?.getReader();
  const chunk = reader ? await reader.read() : undefined;
  controller.abort();
  return chunk?.value ? new TextDecoder().decode(chunk.value) : "";
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
