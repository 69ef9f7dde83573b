/**
 * The team-visibility matrix (issue 39), on SQLite and PostgreSQL against the built server — the
 * third axis beside the role matrix (roles) and the isolation matrix (organizations):
 *
 *   every REST route (× each method it exports), page and server action discovered from the file
 *   system (test/security/route-table.ts) that names a project-scoped object — a project, issue,
 *   event, attachment, release (with its deploys, commits and files), cron or uptime monitor,
 *   alert rule or channel, CODEOWNERS file — by a path parameter, and every organization-level
 *   route, with the object or project sent as `?project=` and in the body
 * × actor: two members and a viewer on teams, as a browser session and a personal token with every
 *   scope (team visibility narrows tokens as it narrows sessions)
 * × target: the objects of the project the actor's team owns, of the project it does not, and a
 *   release spanning both projects
 *
 * judged by generic rules, so a route added later is covered without an entry here:
 *  - off the actor's teams: a route naming the object answers 404 (403 where the permission table
 *    refuses the role first, before any lookup), an organization-level route answers a refusal or
 *    nothing of that project; no answer holds any of that project's data; nothing changes;
 *  - a release spanning both projects: read (showing only the actor's project), never changed
 *    (Sentry requires project:releases on every project of a release);
 *  - on the actor's team: the table decides (allowed → through, never 401/403/404; refused → 403);
 *  - no cell answers 5xx.
 *
 * Phase 1 (every refusal, and the reads) runs first and ends with every object of both projects as
 * it was; phase 2 runs the writes each actor may make on their own team's project, and the admin's
 * control on the spanning release (so "refused" above is not an artefact of wrong ids).
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
import { insertTeam, setTeamMember, setTeamProject } from "../../src/storage/members/teams.js";
import { insertToken } from "../../src/storage/members/tokens.js";
import { upsertMember } from "../../src/storage/orgs/orgs.js";
import { postEnvelope, segmentEnvelope } from "../helpers/replay-envelopes.js";
import { sendTraceEnvelope } from "../helpers/sdk-trace.js";
import { sendEnvelope } from "../helpers/sentry-clients.js";
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
const ALL_SCOPES: string[] = [...TOKEN_SCOPES];
/** Not REST, not an organization's data, or without an [org]: the other matrices cover them. */
const SKIP = new Set([
  "/api/auth/[...all]",
  "/api/sso/[org]/start",
  "/api/sso/[org]/callback",
  "/api/sso/[org]/saml/acs",
  "/api/sso/[org]/saml/metadata",
  "/api/0/[...path]",
]);
/**
 * Path parameters that name an object belonging to a project (by route context where a name is
 * shared: `[slug]` is a project under /projects/ and a cron monitor under /monitors/, `[id]` an
 * issue, an uptime monitor or a CODEOWNERS file — or an external name, which is organization-wide).
 */
function scopedParams(pattern: string): string[] {
  const params = [...pattern.matchAll(/\[(?:\.\.\.)?(\w+)\]/g)].map((m) => m[1] as string);
  // SCIM's [id] is a user or group of the organization, never a project's.
  if (pattern.includes("/scim/v2/")) return [];
  return params.filter((p) => {
    if (["org", "member", "team", "token", "path", "all", "digest"].includes(p)) return false;
    if (p === "id") return !/external-(teams|users)\/\[id\]/.test(pattern);
    if (p === "key") return /\/keys\/\[key\]/.test(pattern); // a DSN key; under /tags/ a tag name
    return true;
  });
}
/** Permission-table actions whose objects belong to no project (members, teams, tokens, SSO, import). */
const ORG_WIDE_ACTIONS = new Set([
  "member.read",
  "member.leave",
  "member.invite",
  "member.admin",
  "team.read",
  "team.write",
  "orgtoken.manage",
  "sso.read",
  "sso.write",
  "org.import",
  "audit.read",
]);

/** `scim`: a SCIM route (issue 42), opened by the organization's SCIM token alone — every actor here is refused it. */
type Declared = Action | "signed-in" | "public" | "scim";

/** Pages and route handlers outside /api/: the browser session's, never a token's. */
function browserOnly(route: HttpRoute): boolean {
  return route.kind === "page" || !route.pattern.startsWith("/api/");
}

/** The access a route's methods declare in `apiRoute("…", …)` (the role matrix reads the same). */
function declaredAccess(file: string): Record<string, Declared | undefined> {
  const source = fs.readFileSync(file, "utf8");
  const wrapped = new Map<string, string>();
  for (const m of source.matchAll(/const\s+(\w+)\s*=\s*apiRoute(?:<[^>]*>)?\(\s*"([^"]+)"/g)) wrapped.set(m[1] as string, m[2] as string);
  const out: Record<string, Declared | undefined> = {};
  for (const m of source.matchAll(/export\s+const\s+(GET|POST|PUT|PATCH|DELETE)\s*=\s*(\w+)/g)) {
    const [, method, value] = m as unknown as [string, string, string];
    const name = value === "scimRoute" ? "scim" : (wrapped.get(method) ?? wrapped.get(value));
    out[method] = name && (name === "signed-in" || name === "public" || name === "scim" || isAction(name)) ? (name as Declared) : undefined;
  }
  return out;
}

function declaredActionAccess(action: ServerAction): Declared | undefined {
  const source = fs.readFileSync(path.join(ROOT, action.file), "utf8");
  const m = new RegExp(`^// permission: ([\\w.-]+)\\nexport async function ${action.name}\\b`, "m").exec(source);
  const name = m?.[1];
  return name && (name === "signed-in" || isAction(name)) ? (name as Declared) : undefined;
}

/** Server actions on the caller's own account or preference, never on a project's objects. */
const NOT_PROJECT_SCOPED = new Set(["signOutEverywhereAction", "emailOptOutAction", "createProjectAction"]);

interface Actor {
  name: string;
  role: Role;
  /** the project slug the actor's team owns */
  team: "openmark" | "secretmark";
  credential: Credential;
  headers: Record<string, string>;
}

type TargetName = "openmark" | "secretmark" | "both";
interface Target {
  name: TargetName;
  values: Record<string, string>;
}

interface Cell {
  what: string;
  actor: string;
  target: TargetName;
  expected: "through" | "refused" | "not-found" | "no-leak" | "read-own";
  status: number;
  problem: string | null;
}

const NOT_FOUND = /not[_ ]found|"status":404/i;
const REFUSAL = /"code":"forbidden"|Only admins and owners can change this|Not changed: |refused=forbidden|"code":"not_found"|not found/i;
const SUCCESS = /"ok":true|"status":"ok"/;

describe.each(await dialects())("team visibility matrix on %s", (dialect) => {
  let server: TestServer;
  let db: Db;
  const routes = discoverRoutes(APP_DIR).filter((r) => r.pattern.includes("[org]") && !SKIP.has(r.pattern));
  const actions = discoverActions(ROOT);
  const actors: Actor[] = [];
  const targets = {} as Record<TargetName, Target>;
  /** What only each project holds: its markers (titles, names, versions, its DSN key). */
  const markers: Record<"openmark" | "secretmark", string[]> = { openmark: ["OPENMARK"], secretmark: ["SECRETMARK", "sec-3"] };
  let ownerHeaders: Record<string, string> = {};
  let adminHeaders: Record<string, string> = {};
  const cells: Cell[] = [];

  async function userId(email: string): Promise<string> {
    const row = (await db.kysely
      .selectFrom("user" as never)
      .select("id" as never)
      .where("email" as never, "=", email as never)
      .executeTakeFirstOrThrow()) as { id: string };
    return row.id;
  }

  async function token(email: string): Promise<string> {
    const secret = `errata_${randomBytes(24).toString("base64url")}`;
    await insertToken(db, {
      userId: await userId(email),
      orgId: null,
      name: "team matrix",
      tokenHash: createHash("sha256").update(secret).digest("hex"),
      tokenPrefix: secret.slice(0, 12),
      scopes: ALL_SCOPES,
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

  /** The owner's REST call for the fixture; throws on anything but 2xx. */
  async function must<T = Record<string, unknown>>(method: string, urlPath: string, body?: unknown): Promise<T> {
    const res = await fetch(`${server.url}/api/0/${urlPath}`, {
      method,
      headers: { ...ownerHeaders, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${urlPath} answered ${res.status}: ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** Every object of a project, as a string per object: what phase 1 must leave as it was. */
  async function projectState(slug: string) {
    const project = await db.kysely
      .selectFrom("projects")
      .select(["id", "settings", "slug"])
      .where("slug", "=", slug)
      .executeTakeFirstOrThrow();
    const pid = Number(project.id);
    const q = (table: string, cols: string[], where: [string, number]) =>
      db.kysely
        .selectFrom(table as never)
        .select(cols as never)
        .where(where[0] as never, "=", where[1] as never)
        .execute()
        .then((rows) => rows.map((r) => JSON.stringify(r)).sort());
    const releaseIds = (await db.kysely.selectFrom("release_projects").select("release_id").where("project_id", "=", pid).execute()).map(
      (r) => Number(r.release_id),
    );
    const releases = releaseIds.length
      ? (await db.kysely.selectFrom("releases").selectAll().where("id", "in", releaseIds).execute()).map((r) => JSON.stringify(r)).sort()
      : [];
    const inReleases = releaseIds.length ? releaseIds : [0];
    const rows = async (table: string, cols: string[], column: string, values: Array<number | string>) =>
      (
        await db.kysely
          .selectFrom(table as never)
          .select(cols as never)
          .where(column as never, "in", (values.length ? values : [0]) as never)
          .execute()
      )
        .map((r) => JSON.stringify(r))
        .sort();
    const versions = (await db.kysely.selectFrom("releases").select("version").where("id", "in", inReleases).execute()).map(
      (r) => r.version,
    );
    const issueIds = (await db.kysely.selectFrom("issues").select("id").where("project_id", "=", pid).execute()).map((r) => Number(r.id));
    const links = await rows("release_projects", ["release_id", "project_id"], "release_id", releaseIds);
    return {
      settings: JSON.stringify(project.settings),
      releases,
      releaseLinks: links,
      releaseMeta: await rows("release_meta", ["release_id", "ref", "url", "date_released", "status"], "release_id", releaseIds),
      deploys: await rows("release_deploys", ["release_id", "environment"], "release_id", releaseIds),
      commits: await rows("release_commits", ["release_id", "commit_id", "message"], "release_id", releaseIds),
      files: await rows("artifact_files", ["release", "url", "sha1"], "release", versions),
      activity: await rows("activity", ["issue_id", "kind", "data"], "issue_id", issueIds),
      mutes: await rows("alert_mutes", ["issue_id"], "issue_id", issueIds),
      links: await rows("issue_links", ["issue_id", "url"], "issue_id", issueIds),
      issues: await q("issues", ["id", "status", "assignee_user_id", "assignee_team_id", "event_count"], ["project_id", pid]),
      keys: await q("project_keys", ["public_key", "label", "active"], ["project_id", pid]),
      monitors: await q("monitors", ["id", "slug", "name", "status", "muted"], ["project_id", pid]),
      uptime: await q("uptime_monitors", ["id", "name"], ["project_id", pid]),
      rules: await q("alert_rules", ["id", "name"], ["project_id", pid]),
      channels: await q("alert_channels", ["id", "name"], ["project_id", pid]),
      codeowners: await q("project_codeowners", ["id", "raw"], ["project_id", pid]),
      feedback: await q("user_feedback", ["id", "comments"], ["project_id", pid]),
    };
  }

  beforeAll(async () => {
    server = await startServer({ dialect });
    db = openDb(server.db.config);
    const people = {
      owner: "olga@acme.test",
      admin: "adam@acme.test",
      mia: "mia@acme.test",
      vera: "vera@acme.test",
      bert: "bert@acme.test",
    };
    await server.cli("user", "create", "--email", people.owner, "--password", PASSWORD, "--org", "acme");
    for (const who of ["admin", "mia", "vera", "bert"] as const)
      await server.cli("user", "create", "--email", people[who], "--password", PASSWORD, "--org", `${who}-home`);
    const acme = Number((await db.kysely.selectFrom("organizations").select("id").where("slug", "=", "acme").executeTakeFirstOrThrow()).id);
    const roles = { admin: "admin", mia: "member", vera: "viewer", bert: "member" } as const;
    for (const who of ["admin", "mia", "vera", "bert"] as const)
      await upsertMember(db.kysely, { orgId: acme, userId: await userId(people[who]), role: roles[who], now: Date.now() });
    const dsn: Record<string, URL> = {};
    for (const slug of ["openmark", "secretmark"])
      dsn[slug] = new URL(await server.cli("project", "create", "--org", "acme", "--name", slug, "--platform", "javascript"));
    markers.openmark.push((dsn.openmark as URL).username);
    markers.secretmark.push((dsn.secretmark as URL).username);
    const pid = async (slug: string) =>
      Number((await db.kysely.selectFrom("projects").select("id").where("slug", "=", slug).executeTakeFirstOrThrow()).id);
    const ids = { openmark: await pid("openmark"), secretmark: await pid("secretmark") };
    // Teams: "front" owns openmark (mia, vera), "back" owns secretmark (bert). Ids first: SQLite has one connection.
    const [mia, vera, bert] = [await userId(people.mia), await userId(people.vera), await userId(people.bert)];
    await writeTx(db, async (tx) => {
      const front = await insertTeam(tx, { orgId: acme, slug: "front", name: "Front", now: Date.now() });
      const back = await insertTeam(tx, { orgId: acme, slug: "back", name: "Back", now: Date.now() });
      await setTeamProject(tx, front, ids.openmark, true);
      await setTeamProject(tx, back, ids.secretmark, true);
      await setTeamMember(tx, front, mia, true);
      await setTeamMember(tx, front, vera, true);
      await setTeamMember(tx, back, bert, true);
    });
    ownerHeaders = { authorization: `Bearer ${await token(people.owner)}` };
    adminHeaders = { authorization: `Bearer ${await token(people.admin)}` };

    // Each project's objects, named with its marker. Events carry its release (`open-1`, `sec-3`), an attachment and tags.
    const release = { openmark: "open-1", secretmark: "sec-3" } as const;
    const mark = { openmark: "OPENMARK", secretmark: "SECRETMARK" } as const;
    const values: Record<string, Record<string, string>> = {};
    for (const slug of ["openmark", "secretmark"] as const) {
      const e1 = await sendEnvelope(dsn[slug] as URL, {
        release: release[slug],
        exception: { values: [{ type: "Error", value: `${mark[slug]} first failure` }] },
        tags: { digest: `${slug}-digest` },
      });
      for (const type of ["RangeError", "SyntaxError"])
        await sendEnvelope(dsn[slug] as URL, {
          release: release[slug],
          exception: { values: [{ type, value: `${mark[slug]} ${type} failure` }] },
        });
      const issues = await eventually(
        async () => {
          const rows = await db.kysely.selectFrom("issues").select(["id"]).where("project_id", "=", ids[slug]).orderBy("id").execute();
          return rows.length >= 3 ? rows : undefined;
        },
        30_000,
        `${slug}'s issues`,
      );
      const [i1, i2, i3] = issues.map((r) => String(r.id));
      // A trace of its own: spans, a log and an error, each naming the project's marker.
      const trace = await sendTraceEnvelope(dsn[slug] as URL, mark[slug]);
      const traceLog = await eventually(
        async () => {
          const page = await must<{ data: Array<{ id: string }> }>("GET", `organizations/acme/trace-logs/?traceId=${trace.traceId}`);
          return page.data[0];
        },
        30_000,
        `${slug}'s trace`,
      );
      // A session replay of its own, the marker in a URL it visited (issue 40's routes and page).
      const replayId = randomBytes(16).toString("hex");
      const t0 = Date.now() - 10_000;
      await postEnvelope(dsn[slug] as URL, segmentEnvelope(replayId, 0, t0, { start: t0, urls: [`https://shop.example/${mark[slug]}`] }));
      await eventually(
        () => db.kysely.selectFrom("replay_segments").select("replay_id").where("replay_id", "=", replayId).executeTakeFirst(),
        30_000,
        `${slug}'s replay`,
      );
      const hash = await db.kysely.selectFrom("issue_hashes").select("hash").where("issue_id", "=", Number(i2)).executeTakeFirstOrThrow();
      const issue = await must<{ shortId: string }>("GET", `organizations/acme/issues/${i1}/`);
      const attachments = await eventually(
        async () => {
          const list = await must<Array<{ id: string }>>("GET", `projects/acme/${slug}/events/${e1}/attachments/`);
          return list.length > 0 ? list : undefined;
        },
        30_000,
        `${slug}'s attachment`,
      );
      await must("POST", `organizations/acme/releases/${release[slug]}/deploys/`, { environment: "production" });
      await must("PUT", `organizations/acme/releases/${release[slug]}/`, {
        commits: [{ id: `${slug === "openmark" ? "a" : "b"}`.repeat(40), message: `${mark[slug]} commit`, author_email: people.owner }],
      });
      const form = new FormData();
      form.set("file", new Blob([`// ${mark[slug]} source\n`]), "app.js");
      form.set("name", `~/${mark[slug]}-app.js`);
      const file = await fetch(`${server.url}/api/0/projects/acme/${slug}/releases/${release[slug]}/files/`, {
        method: "POST",
        headers: ownerHeaders,
        body: form,
      });
      expect(file.status, `release file for ${slug}`).toBe(201);
      await must("POST", "organizations/acme/monitors/", {
        project: slug,
        name: `${mark[slug]} nightly`,
        slug: `${slug}-cron`,
        config: { schedule_type: "crontab", schedule: "0 3 * * *" },
        // Paused: a missed 03:00 check-in during the run would change the project under the comparison.
        status: "disabled",
      });
      const uptime = await must<{ id: string | number }>("POST", "organizations/acme/uptime/", {
        project: slug,
        name: `${mark[slug]} health`,
        // Paused below, and never down after one check: no issue of its own while states are compared.
        config: { url: `https://${slug}.invalid/health`, failureThreshold: 100 },
      });
      // Paused: its failing checks would open issues while the matrix compares the project's state.
      await db.kysely.updateTable("uptime_monitors").set({ paused: 1 }).where("id", "=", Number(uptime.id)).execute();
      const channel = await must<{ id: string | number }>("POST", `projects/acme/${slug}/alert-channels/`, {
        kind: "slack",
        name: `${mark[slug]} channel`,
        config: { url: `https://hooks.invalid/${slug}` },
      });
      const rule = await must<{ id: string | number }>("POST", `projects/acme/${slug}/rules/`, {
        name: `${mark[slug]} rule`,
        conditions: [{ id: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition" }],
        actions: [{ id: "errata.rules.actions.NotifyChannelAction", channelId: channel.id }],
      });
      const codeowners = await must<{ id: string | number }>("POST", `projects/acme/${slug}/codeowners/`, {
        raw: `# ${mark[slug]}\nsrc/ ${people.owner}\n`,
      });
      await must("POST", `projects/acme/${slug}/user-feedback/`, {
        event_id: e1,
        name: "Shopper",
        email: "shopper@example.com",
        comments: `${mark[slug]} feedback`,
      });
      const key = await db.kysely
        .selectFrom("project_keys")
        .select(["id", "public_key"])
        .where("project_id", "=", ids[slug])
        .executeTakeFirstOrThrow();
      values[slug] = {
        org: "acme",
        project: slug,
        projectId: String(ids[slug]),
        monitor: `${slug}-cron`,
        issueId: i1 as string,
        issueId2: i2 as string,
        issueId3: i3 as string,
        hash: hash.hash,
        shortId: issue.shortId,
        eventId: e1,
        attachmentId: String(attachments[0]?.id),
        version: release[slug],
        uptimeId: String(uptime.id),
        channelId: String(channel.id),
        ruleId: String(rule.id),
        codeownersId: String(codeowners.id),
        key: key.public_key,
        keyId: String(key.id),
        digest: `${slug}-digest`,
        traceId: trace.traceId,
        itemId: traceLog.id,
        replayId,
        segmentId: "0",
      };
    }
    await must("POST", "organizations/acme/releases/", { version: "both-1", projects: ["openmark", "secretmark"] });
    targets.openmark = { name: "openmark", values: values.openmark as Record<string, string> };
    targets.secretmark = { name: "secretmark", values: values.secretmark as Record<string, string> };
    // The spanning release: the rest of the values are the reader's own project's (set per actor).
    targets.both = { name: "both", values: { version: "both-1" } };

    for (const [who, team] of [
      ["mia", "openmark"],
      ["vera", "openmark"],
      ["bert", "secretmark"],
    ] as const) {
      const role = roles[who];
      actors.push({
        name: `${who} (${role}) cookie`,
        role,
        team,
        credential: { kind: "session" },
        headers: { cookie: await signIn(people[who]), origin: server.url },
      });
      actors.push({
        name: `${who} (${role}) token`,
        role,
        team,
        credential: { kind: "user-token", scopes: ALL_SCOPES },
        headers: { authorization: `Bearer ${await token(people[who])}` },
      });
    }
  }, 300_000);
  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  /** The values a route's parameters take for a target (context decides what `[slug]`, `[id]` and `[key]` name). */
  function valuesFor(pattern: string, actor: Actor, target: Target): Record<string, string> {
    const base = target.name === "both" ? { ...(targets[actor.team].values as Record<string, string>), ...target.values } : target.values;
    const v: Record<string, string> = { ...base, member: "no-such-member", team: "no-such-team", token: "0".repeat(43), path: "traces" };
    v.slug = /\/monitors\/\[slug\]/.test(pattern) ? (base.monitor as string) : (base.project as string);
    if (/\/uptime\/\[id\]/.test(pattern)) v.id = base.uptimeId as string;
    else if (/\/codeowners\/\[id\]/.test(pattern)) v.id = base.codeownersId as string;
    else if (/external-(teams|users)\/\[id\]/.test(pattern)) v.id = "999999";
    else if (/\/replays\/\[id\]/.test(pattern)) v.id = base.replayId as string;
    else v.id = base.issueId as string;
    if (/\/tags\/\[key\]/.test(pattern)) v.key = "environment";
    return v;
  }

  /** A body naming the target's objects, for the routes that take them in the body. */
  function bodyFor(target: Target, actor: Actor): string {
    const v = target.name === "both" ? { ...targets[actor.team].values, version: "both-1" } : target.values;
    return JSON.stringify({
      version: v.version,
      projects: target.name === "both" ? ["openmark", "secretmark"] : [v.project],
      project: v.project,
      name: "changed by the matrix",
      comments: "matrix feedback",
      event_id: v.eventId,
      text: "matrix comment",
      status: "resolved",
      environment: "matrix",
      chunks: [],
      checksum: "0".repeat(40),
      raw: "src/ nobody@acme.test",
      config: { schedule_type: "crontab", schedule: "0 4 * * *", url: "https://changed.invalid/" },
      conditions: [{ id: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition" }],
      actions: [],
    });
  }

  /** The project(s) a target's objects belong to, as the actor sees them. */
  function sees(actor: Actor, target: Target): "own" | "other" | "both" {
    if (target.name === "both") return "both";
    return target.name === actor.team ? "own" : "other";
  }

  function otherMarkers(actor: Actor): string[] {
    return markers[actor.team === "openmark" ? "secretmark" : "openmark"];
  }

  function leaked(body: string, url: string, secrets: string[]): string | null {
    const lower = url.toLowerCase();
    const hit = secrets.find((m) => !lower.includes(m.toLowerCase()) && body.toLowerCase().includes(m.toLowerCase()));
    return hit ? `body holds the other project's "${hit}"` : null;
  }

  function judgeHttp(
    route: HttpRoute,
    method: string,
    access: Declared,
    actor: Actor,
    target: Target,
    status: number,
    body: string,
    url: string,
  ): Cell {
    const allowed =
      access !== "scim" && (access === "signed-in" || access === "public" || permits(actor.role, actor.credential, access as Action));
    const scoped = scopedParams(route.pattern).length > 0;
    const relation = sees(actor, target);
    const what = `${method} ${route.pattern} (${access})`;
    const cell = (expected: Cell["expected"], problem: string | null): Cell => ({
      what,
      actor: actor.name,
      target: target.name,
      expected,
      status,
      problem,
    });
    if (status >= 500) return cell("through", `answered ${status}: ${body.slice(0, 200)}`);
    const leak = leaked(body, url, otherMarkers(actor));
    if (access === "scim")
      return cell("refused", leak ?? (status === 401 ? null : `SCIM route answered ${status} (only the SCIM token opens it)`));
    // Organization-level routes (lists, searches, creation with the project in the body): nothing of
    // a project the actor cannot see, whatever the answer; whether anything changed is checked after.
    if (!scoped) return cell("no-leak", leak);
    if (relation === "other") {
      if (leak) return cell("not-found", leak);
      if (allowed && status !== 404) return cell("not-found", `answered ${status}, not 404: ${body.slice(0, 200)}`);
      if (!allowed && status !== 403 && status !== 404) return cell("refused", `answered ${status}, not a refusal: ${body.slice(0, 200)}`);
      return cell(allowed ? "not-found" : "refused", null);
    }
    if (relation === "both") {
      if (leak) return cell("read-own", leak);
      if (method === "GET")
        return cell("read-own", allowed && (status === 401 || status === 403 || status === 404) ? `own read refused (${status})` : null);
      if (allowed && status !== 404)
        return cell(
          "not-found",
          `a write on a release spanning a project the actor cannot see answered ${status}, not 404: ${body.slice(0, 200)}`,
        );
      if (!allowed && status !== 403 && status !== 404) return cell("refused", `answered ${status}`);
      return cell(allowed ? "not-found" : "refused", null);
    }
    if (leak) return cell("through", leak);
    if (!allowed)
      return cell("refused", status === 403 || (route.kind === "page" && status < 400) ? null : `answered ${status}, the table refuses it`);
    const refused = status === 401 || status === 403 || status === 404 || (status >= 300 && status < 400 && /\/login/.test(body));
    return cell("through", refused ? `own project's object refused (${status}): ${body.slice(0, 200)}` : null);
  }

  async function httpCell(route: HttpRoute, method: string, access: Declared, actor: Actor, target: Target): Promise<void> {
    let url = fill(route.pattern, valuesFor(route.pattern, actor, target));
    if (url.startsWith("/api/0/")) url += "/";
    const own = target.name === "both" ? targets[actor.team].values : target.values;
    // Organization-level routes: the target's project (and issue, for bulk mutations) by query.
    // The extra fields make Sentry's query routes (events, events-stats) answer rows rather than a 400.
    if (scopedParams(route.pattern).length === 0)
      url += `?project=${own.projectId}&id=${own.issueId}&query=&field=title&field=project&yAxis=count()&statsPeriod=14d`;
    const init: RequestInit = { method, redirect: "manual", headers: { ...actor.headers } };
    if (method !== "GET") {
      init.body = bodyFor(target, actor);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const controller = new AbortController();
    init.signal = controller.signal;
    const res = await fetch(`${server.url}${url}`, init);
    const body = res.headers.get("content-type")?.includes("event-stream") ? await firstChunk(res, controller) : await res.text();
    const location = res.headers.get("location") ?? "";
    cells.push(judgeHttp(route, method, access, actor, target, res.status, `${location}\n${body}`, `${url}\n${init.body ?? ""}`));
  }

  function actionArgs(action: ServerAction, actor: Actor, target: Target): unknown[] {
    const v = target.name === "both" ? targets[actor.team].values : target.values;
    if (action.params.length === 2 && action.params[1] === "data") {
      const data = new FormData();
      const fields: Record<string, string> = {
        org: "acme",
        project: v.project as string,
        slug: v.monitor as string,
        keyId: v.keyId as string,
        ruleId: v.ruleId as string,
        channelId: v.channelId as string,
        deliveryId: "999999",
        replayId: v.replayId as string,
        id: v.codeownersId as string,
        label: "matrix",
        name: "matrix",
        op: "disable",
        confirm: "Default",
        section: "retention",
        retentionDays: "1",
        kind: "slack",
        url: "https://hooks.invalid/matrix",
        raw: "src/ nobody@acme.test",
        codeowners: "src/ nobody@acme.test",
        scheduleType: "crontab",
        crontab: "0 5 * * *",
        newIssue: "on",
        active: "true",
      };
      for (const [k, val] of Object.entries(fields)) data.set(k, val);
      return [{ status: "idle" }, data];
    }
    const monitorForm = new FormData();
    for (const [k, val] of Object.entries({ org: "acme", slug: v.monitor as string, change: "pause" })) monitorForm.set(k, val);
    const byName: Record<string, unknown> = {
      orgSlug: "acme",
      issueIds: [Number(v.issueId), Number(v.issueId2)],
      issueId: Number(v.issueId),
      text: "matrix comment",
      body: { status: "resolved" },
      // mergeIssues merges the second issue into the first; mergeInto then merges the third, and
      // unmergeHash splits the second one's hash off again (actions replay in file order).
      others: v.issueId3,
      "primaryId?": Number(v.issueId),
      hash: v.hash,
      form: monitorForm,
      minutes: 60,
      org: "acme",
      project: v.project,
      draft: { fingerprintingRules: "", groupingEnhancements: "" },
      url: "https://github.com/acme/web/issues/1",
      runId: "999999",
    };
    return action.params.map((p) => {
      if (!(p in byName)) throw new Error(`no value for parameter ${p} of server action ${action.name}: add it to the team matrix`);
      return byName[p];
    });
  }

  async function actionCell(action: ServerAction, access: Declared, actor: Actor, target: Target): Promise<void> {
    const v = target.name === "both" ? targets[actor.team].values : target.values;
    const url = fill(action.pagePattern, { org: "acme", slug: v.project as string, id: v.issueId as string, version: v.version as string });
    const encoded = await encodeReply(actionArgs(action, actor, target));
    const headers: Record<string, string> = { ...actor.headers, "next-action": action.id, accept: "text/x-component" };
    if (typeof encoded === "string") headers["content-type"] = "text/plain;charset=UTF-8";
    const res = await fetch(`${server.url}${url}`, { method: "POST", headers, body: encoded, redirect: "manual" });
    const redirect = res.headers.get("x-action-redirect") ?? "";
    const body = `${redirect}\n${await res.text()}`;
    const allowed = access === "signed-in" || permits(actor.role, actor.credential, access as Action);
    const what = `action ${action.name} (${access})`;
    // What the actor named (the page, the project and monitor slugs in the form): echoing it back is no leak.
    const sent = `${url}\n${v.project} ${v.monitor}`;
    const relation = sees(actor, target);
    let problem: string | null = null;
    let expected: Cell["expected"] = "through";
    if (res.status >= 500) problem = `answered ${res.status}`;
    else if (relation === "other") {
      expected = allowed ? "not-found" : "refused";
      problem = leaked(body, sent, otherMarkers(actor));
      if (!problem && SUCCESS.test(body)) problem = `succeeded on the other team's project: ${body.slice(0, 200)}`;
      else if (!problem && !REFUSAL.test(body)) problem = `not refused: ${body.slice(0, 300)}`;
    } else {
      expected = allowed ? "through" : "refused";
      problem = leaked(body, sent, otherMarkers(actor));
      if (!problem && allowed && NOT_FOUND.test(body) && !/"code":"validation_failed"/.test(body))
        problem = `own project's object not found: ${body.slice(0, 300)}`;
      if (!problem && !allowed && SUCCESS.test(body)) problem = `succeeded but the table refuses it: ${body.slice(0, 200)}`;
    }
    cells.push({ what, actor: actor.name, target: target.name, expected, status: res.status, problem });
  }

  test("the issue's case: a member of team A deletes nothing of team B's release sec-3 (404 like PUT), nor adds to it", async () => {
    const mia = actors.find((a) => a.name.startsWith("mia") && a.credential.kind === "user-token") as Actor;
    const call = async (method: string, urlPath: string, body?: unknown) =>
      (
        await fetch(`${server.url}/api/0/${urlPath}`, {
          method,
          headers: { ...mia.headers, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).status;
    const before = await projectState("secretmark");
    expect(await call("DELETE", "organizations/acme/releases/sec-3/")).toBe(404);
    expect(await call("PUT", "organizations/acme/releases/sec-3/", { ref: "stolen" })).toBe(404);
    expect(await call("GET", "organizations/acme/releases/sec-3/")).toBe(404);
    expect(await call("POST", "organizations/acme/releases/sec-3/deploys/", { environment: "evil" })).toBe(404);
    // Creating "sec-3" again for a project of one's own would add to the other team's release.
    expect(await call("POST", "organizations/acme/releases/", { version: "sec-3", projects: ["openmark"] })).toBe(404);
    // The spanning release: read (showing only the member's project), never changed or deleted.
    const both = await fetch(`${server.url}/api/0/organizations/acme/releases/both-1/`, { headers: mia.headers });
    expect(both.status).toBe(200);
    expect(((await both.json()) as { projects: Array<{ slug: string }> }).projects.map((p) => p.slug)).toEqual(["openmark"]);
    expect(await call("DELETE", "organizations/acme/releases/both-1/")).toBe(404);
    expect(await projectState("secretmark")).toEqual(before);
  });

  test("traces: a member reads their team's trace, and nothing of the other team's, through every trace route and page", async () => {
    const mia = actors.find((a) => a.name.startsWith("mia") && a.credential.kind === "user-token") as Actor;
    const miaCookie = actors.find((a) => a.name.startsWith("mia") && a.credential.kind === "session") as Actor;
    const get = async (urlPath: string, headers = mia.headers) => {
      const res = await fetch(`${server.url}${urlPath}`, { headers, redirect: "manual" });
      return { status: res.status, body: (await res.text()).toLowerCase() };
    };
    const own = targets.openmark.values;
    const other = targets.secretmark.values;
    expect((await get(`/api/0/organizations/acme/trace/${own.traceId}/`)).body).toContain("openmark query");
    expect((await get(`/api/0/organizations/acme/trace/${other.traceId}/`)).status).toBe(404);
    expect((await get(`/api/0/organizations/acme/trace-meta/${other.traceId}/`)).status).toBe(404);
    const logs = await get(`/api/0/organizations/acme/trace-logs/?traceId=${own.traceId}&traceId=${other.traceId}`);
    expect(logs.body).toContain("openmark log line");
    expect(logs.body).not.toContain("secretmark");
    const metrics = await get("/api/0/organizations/acme/events/?dataset=tracemetrics&field=metric.name&field=project&statsPeriod=14d");
    expect(metrics.status).toBe(200);
    expect(metrics.body).not.toContain("secretmark");
    const list = await get("/acme/traces?period=24h", miaCookie.headers);
    expect(list.status).toBe(200);
    expect(list.body).toContain("openmark /checkout");
    expect(list.body).not.toContain("secretmark");
    const page = await get(`/acme/traces/${own.traceId}`, miaCookie.headers);
    expect(page.body).toContain("openmark failure in a trace");
    expect((await get(`/acme/traces/${other.traceId}`, miaCookie.headers)).status).toBe(404);
  });

  test("organization-wide lists and queries show a member their own team's project and nothing of the other", async () => {
    const mia = actors.find((a) => a.name.startsWith("mia") && a.credential.kind === "user-token") as Actor;
    const get = async (urlPath: string) =>
      (await (await fetch(`${server.url}/api/0/${urlPath}`, { headers: mia.headers })).text()).toLowerCase();
    const lists = [
      "organizations/acme/events/?field=title&field=project&statsPeriod=14d",
      `organizations/acme/events/?field=title&project=${targets.secretmark.values.projectId}&project=${targets.openmark.values.projectId}&statsPeriod=14d`,
      "organizations/acme/issues/?query=",
      "organizations/acme/releases/",
      "organizations/acme/monitors/",
      "organizations/acme/uptime/",
      "organizations/acme/projects/",
    ];
    for (const list of lists) {
      const body = await get(list);
      expect(body, list).toContain("openmark");
      expect(body, list).not.toContain("secretmark");
      expect(body, list).not.toContain("sec-3");
    }
  });

  test("a member and a viewer outside a project's teams find none of its objects, change none, and reach their own", async () => {
    const routeCells = routes.flatMap((route) => {
      // Pages and the browser's own route handlers (attachment downloads, live stream, suggestions): reads any role may make.
      const declared = browserOnly(route) ? { GET: "event.read" as Declared } : declaredAccess(route.file);
      return route.methods.map((method) => ({ route, method, access: declared[method] }));
    });
    const missing = routeCells.filter((c) => !c.access).map((c) => `${c.method} ${c.route.pattern}`);
    expect(missing, "routes without a declared action (the role matrix names them)").toEqual([]);
    const projectActions = actions.filter((a) => {
      const access = declaredActionAccess(a);
      return access && access !== "signed-in" && !ORG_WIDE_ACTIONS.has(access) && !NOT_PROJECT_SCOPED.has(a.name);
    });
    const before = { openmark: await projectState("openmark"), secretmark: await projectState("secretmark") };

    // Phase 1: every cell that must change nothing — the other team's objects, the spanning
    // release, and reads of one's own.
    const jobs: Array<() => Promise<void>> = [];
    for (const actor of actors) {
      for (const { route, method, access } of routeCells) {
        if (browserOnly(route) && !actor.headers.cookie) continue; // a session's, never a token's
        for (const target of [targets.openmark, targets.secretmark, targets.both]) {
          const relation = sees(actor, target);
          if (relation === "both" && !/\[version\]/.test(route.pattern)) continue;
          if (relation === "own" && method !== "GET") continue;
          jobs.push(() => httpCell(route, method, access as Declared, actor, target));
        }
      }
      for (const action of projectActions) {
        if (!actor.headers.cookie) continue; // server actions run with a browser session
        const other = actor.team === "openmark" ? targets.secretmark : targets.openmark;
        jobs.push(() => actionCell(action, declaredActionAccess(action) as Declared, actor, other));
      }
    }
    await runLimited(jobs, 4);
    // Judged after the cells are printed (which cell changed what is easier to see from them).
    const after = { openmark: await projectState("openmark"), secretmark: await projectState("secretmark") };

    // Phase 2: each actor's writes on their own team's project (deletions last), one actor at a time;
    // the release a cell names is made again first (an earlier cell may have deleted it, legitimately).
    const writeCell = async (c: (typeof routeCells)[number], actor: Actor, own: Target) => {
      if (/\[version\]/.test(c.route.pattern))
        await must("POST", "organizations/acme/releases/", { version: own.values.version, projects: [own.values.project] });
      await httpCell(c.route, c.method, c.access as Declared, actor, own);
    };
    for (const actor of actors) {
      const own = targets[actor.team];
      const writes = routeCells.filter((c) => c.method !== "GET" && (actor.headers.cookie || !browserOnly(c.route)));
      for (const c of writes.filter((c) => c.method !== "DELETE")) await writeCell(c, actor, own);
      if (actor.headers.cookie)
        for (const action of projectActions) await actionCell(action, declaredActionAccess(action) as Declared, actor, own);
      for (const c of writes.filter((c) => c.method === "DELETE")) await writeCell(c, actor, own);
    }
    // Control: the admin sees both projects, so changes the spanning release a member could not.
    const control = await fetch(`${server.url}/api/0/organizations/acme/releases/both-1/`, {
      method: "PUT",
      headers: { ...adminHeaders, "content-type": "application/json" },
      body: JSON.stringify({ ref: "admin-control" }),
    });
    cells.push({
      what: "PUT /api/0/organizations/[org]/releases/[version] (control)",
      actor: "adam (admin) token",
      target: "both",
      expected: "through",
      status: control.status,
      problem: control.status === 200 ? null : `the admin's control answered ${control.status}`,
    });

    const failures = cells.filter((c) => c.problem);
    const byExpectation = Object.entries(
      cells.reduce<Record<string, number>>((acc, c) => {
        acc[c.expected] = (acc[c.expected] ?? 0) + 1;
        return acc;
      }, {}),
    )
      .map(([k, n]) => `${n} ${k}`)
      .join(", ");
    console.log(
      `team visibility matrix (${dialect}): ${cells.length} cells — ${routeCells.length} route×method + ${projectActions.length} server actions × ${actors.length} actors × up to 3 targets (${byExpectation}); ${failures.length} wrong`,
    );
    for (const f of failures.slice(0, 200)) console.log(`  WRONG ${f.what} as ${f.actor} → ${f.target}: ${f.problem}`);
    expect(failures.map((f) => `${f.what} as ${f.actor} → ${f.target}: ${f.problem}`)).toEqual([]);
    expect(after.openmark, "phase 1 changed the openmark project").toEqual(before.openmark);
    expect(after.secretmark, "phase 1 changed the secretmark project").toEqual(before.secretmark);
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
