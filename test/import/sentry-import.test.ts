/**
 * `errata import sentry` (issue 32) end to end, on SQLite and PostgreSQL:
 *  - from a second Errata started by the test (it speaks Sentry's API): teams, projects, links and
 *    DSN keys arrive; then the unchanged @sentry/node with the old DSN, only its host changed, sends
 *    an event that lands in the imported project — both when the old project id was free here (kept)
 *    and when it was taken (an alias on the key);
 *  - from a recorded replay of Sentry's documented answers: `Link` cursors, a 429 with `Retry-After`
 *    waited out, secret keys, an inactive key, data-scrubbing settings, team links from both sides;
 *  - a second run changes nothing; `--dry-run` writes nothing; the CLI killed half-way and started
 *    again ends in the same state as one clean run;
 *  - bad input (wrong URL or token, HTML, policy, unknown org, slug taken with other keys, a key of
 *    another organization): the catalogue error, and nothing written.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { AppError } from "../../src/core/errors";
import type { ImportReport } from "../../src/core/import/sentry";
import { createLogger } from "../../src/log";
import type { OutboundPolicy } from "../../src/net/safe-request";
import { type Auth, createAuth, createUserWithPassword, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import { createImportServices, type SentryImportInput } from "../../src/server/import/sentry-import";
import { type Db, openDb } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { decodePayload } from "../../src/storage/events/events";
import { listMembers } from "../../src/storage/members/members";
import { findOrgBySlug, insertOrg, upsertMember } from "../../src/storage/orgs/orgs";
import { insertKey, insertProject } from "../../src/storage/orgs/projects";
import { CLI, eventually, ROOT, startServer, type TestServer } from "../helpers/server";
import { createTestDatabase, dialects, openTestDb, type TestDatabase } from "../helpers/test-db";
import { startHandler } from "../ingest/helpers";
import { drain } from "../pipeline/helpers";
import {
  IOS_COMMITS,
  IOS_EVENT_IDS,
  IOS_KEY,
  IOS_OLD_KEY,
  iosIssues,
  PAYMENTS_KEY,
  REPLAY_TOKEN,
  type Replay,
  startReplay,
} from "./sentry-replay";

const execFileP = promisify(execFile);
const OPEN_POLICY = { allowPrivate: true, allowHosts: [] };
const failNoMembership = () => Promise.reject(new AppError("forbidden"));

function importer(db: Db, policy: OutboundPolicy = OPEN_POLICY) {
  return createImportServices({ db, now: Date.now, policy, invitationDays: 7, authorize: failNoMembership });
}

async function errorCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof AppError ? err.code : `not an AppError: ${String(err)}`;
  }
  return "no error";
}

/** Everything an import writes for one organization, without ids that differ by run (times). */
async function snapshot(db: Db, orgSlug: string) {
  const org = await findOrgBySlug(db, orgSlug);
  if (!org) return null;
  const k = db.kysely;
  const teams = await k.selectFrom("teams").select(["slug", "name"]).where("org_id", "=", org.id).orderBy("slug").execute();
  const projects = await k
    .selectFrom("projects")
    .select(["id", "slug", "name", "platform", "settings"])
    .where("org_id", "=", org.id)
    .orderBy("slug")
    .execute();
  const keys = await k
    .selectFrom("project_keys")
    .innerJoin("projects", "projects.id", "project_keys.project_id")
    .select([
      "projects.slug",
      "project_keys.public_key",
      "project_keys.secret_key",
      "project_keys.label",
      "project_keys.active",
      "project_keys.dsn_project_id",
    ])
    .where("projects.org_id", "=", org.id)
    .orderBy("project_keys.public_key")
    .execute();
  const links = await k
    .selectFrom("team_projects")
    .innerJoin("teams", "teams.id", "team_projects.team_id")
    .innerJoin("projects", "projects.id", "team_projects.project_id")
    .select(["teams.slug as team", "projects.slug as project"])
    .where("teams.org_id", "=", org.id)
    .orderBy("teams.slug")
    .orderBy("projects.slug")
    .execute();
  const invitations = await k
    .selectFrom("invitations")
    .select(["id", "email", "role", "accepted_at", "revoked_at"])
    .where("org_id", "=", org.id)
    .orderBy("email")
    .execute();
  const invitationTeams = await k
    .selectFrom("invitation_teams")
    .innerJoin("teams", "teams.id", "invitation_teams.team_id")
    .select(["invitation_teams.invitation_id", "teams.slug"])
    .where("teams.org_id", "=", org.id)
    .orderBy("teams.slug")
    .execute();
  const invited = invitations.map((i) => ({
    email: i.email,
    role: i.role,
    open: i.accepted_at === null && i.revoked_at === null,
    teams: invitationTeams.filter((t) => Number(t.invitation_id) === Number(i.id)).map((t) => t.slug),
  }));
  const norm = <T extends Record<string, unknown>>(rows: T[]) =>
    rows.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([key, v]) => [key, typeof v === "bigint" || key.endsWith("id") ? (v === null ? null : Number(v)) : v]),
      ),
    );
  // Rules and channels by what they are, not their ids (a fresh database numbers them differently).
  const channelRows = await k
    .selectFrom("alert_channels")
    .innerJoin("projects", "projects.id", "alert_channels.project_id")
    .select(["alert_channels.id", "projects.slug", "alert_channels.name", "alert_channels.kind", "alert_channels.config"])
    .where("projects.org_id", "=", org.id)
    .orderBy("projects.slug")
    .orderBy("alert_channels.name")
    .execute();
  const channelOf = new Map(channelRows.map((c) => [Number(c.id), `${c.kind} ${c.config}`]));
  const channels = channelRows.map((c) => ({ project: c.slug, name: c.name, kind: c.kind, config: JSON.parse(c.config) }));
  const ruleRows = await k
    .selectFrom("alert_rules")
    .innerJoin("projects", "projects.id", "alert_rules.project_id")
    .select([
      "projects.slug",
      "alert_rules.name",
      "alert_rules.enabled",
      "alert_rules.triggers",
      "alert_rules.filters",
      "alert_rules.channel_ids",
      "alert_rules.throttle_minutes",
      "alert_rules.hourly_cap",
      "alert_rules.targets",
    ])
    .where("projects.org_id", "=", org.id)
    .orderBy("projects.slug")
    .orderBy("alert_rules.name")
    .execute();
  const rules = ruleRows.map((r) => ({
    project: r.slug,
    name: r.name,
    enabled: Number(r.enabled),
    triggers: JSON.parse(r.triggers),
    filters: JSON.parse(r.filters),
    channels: (JSON.parse(r.channel_ids) as number[]).map((id) => channelOf.get(id) ?? `missing ${id}`).sort(),
    throttle: Number(r.throttle_minutes),
    cap: Number(r.hourly_cap),
    targets: JSON.parse(r.targets ?? "[]"),
  }));
  const releaseRows = await k
    .selectFrom("releases")
    .leftJoin("release_meta", "release_meta.release_id", "releases.id")
    .select([
      "releases.id",
      "releases.version",
      "releases.created_at",
      "release_meta.ref",
      "release_meta.url",
      "release_meta.date_released",
      "release_meta.status",
    ])
    .where("releases.org_id", "=", org.id)
    .orderBy("releases.version")
    .execute();
  const releases = [];
  for (const r of releaseRows) {
    const projectsOf = await k
      .selectFrom("release_projects")
      .innerJoin("projects", "projects.id", "release_projects.project_id")
      .select("projects.slug")
      .where("release_projects.release_id", "=", r.id)
      .orderBy("projects.slug")
      .execute();
    const commits = await k
      .selectFrom("release_commits")
      .select(["position", "repository", "commit_id", "author_email", "message", "committed_at"])
      .where("release_id", "=", r.id)
      .orderBy("position")
      .execute();
    const deploys = await k
      .selectFrom("release_deploys")
      .select(["environment", "name", "date_started", "date_finished"])
      .where("release_id", "=", r.id)
      .orderBy("date_finished")
      .execute();
    releases.push({
      version: r.version,
      createdAt: Number(r.created_at),
      ref: r.ref,
      url: r.url,
      dateReleased: r.date_released === null ? null : Number(r.date_released),
      status: r.status,
      projects: projectsOf.map((p) => p.slug),
      commits: commits.map((c) => ({
        ...c,
        position: Number(c.position),
        committed_at: c.committed_at === null ? null : Number(c.committed_at),
      })),
      deploys: deploys.map((d) => ({
        ...d,
        date_started: d.date_started === null ? null : Number(d.date_started),
        date_finished: Number(d.date_finished),
      })),
    });
  }
  // Imported issues (found through their import link) with their events.
  const issueRows = await k
    .selectFrom("import_links")
    .innerJoin("issues", "issues.id", "import_links.local_id")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .leftJoin("teams", "teams.id", "issues.assignee_team_id")
    .select([
      "import_links.source_key",
      "issues.id",
      "projects.slug",
      "issues.title",
      "issues.level",
      "issues.status",
      "issues.substatus",
      "issues.first_seen",
      "issues.last_seen",
      "issues.event_count",
      "issues.user_count",
      "issues.resolution",
      "issues.assignee_user_id",
      "teams.slug as team",
      "issues.last_event_id",
    ])
    .where("import_links.org_id", "=", org.id)
    .where("import_links.kind", "=", "issue")
    .orderBy("import_links.source_key")
    .execute();
  const issues = [];
  for (const i of issueRows) {
    const events = await k
      .selectFrom("events")
      .select(["event_id", "release", "environment", "level"])
      .where("issue_id", "=", i.id)
      .orderBy("event_id")
      .execute();
    const { id: _id, ...rest } = i;
    issues.push({
      ...rest,
      first_seen: Number(i.first_seen),
      last_seen: Number(i.last_seen),
      event_count: Number(i.event_count),
      user_count: Number(i.user_count),
      events,
    });
  }
  const ownershipRows = await k
    .selectFrom("project_ownership")
    .innerJoin("projects", "projects.id", "project_ownership.project_id")
    .select([
      "projects.slug as project",
      "project_ownership.raw",
      "project_ownership.fallthrough",
      "project_ownership.auto_assignment",
      "project_ownership.codeowners_auto_sync",
    ])
    .where("projects.org_id", "=", org.id)
    .orderBy("projects.slug")
    .execute();
  const ownership = ownershipRows.map((o) => ({
    ...o,
    fallthrough: Number(o.fallthrough),
    codeowners_auto_sync: Number(o.codeowners_auto_sync),
  }));
  return {
    name: org.name,
    teams,
    projects: norm(projects),
    keys: norm(keys),
    links,
    invited,
    channels,
    rules,
    releases,
    issues,
    ownership,
  };
}

const actions = (r: ImportReport) => r.entries.map((e) => `${e.action} ${e.kind} ${e.name}`).sort();

/** Runs the official @sentry/node in a child process: one captured exception, flushed. */
async function sendWithSdk(dsn: string, message: string, dirName?: string, fingerprint?: string): Promise<void> {
  // A fixed directory gives the same stack trace (and so the same issue) from run to run.
  const dir = path.join(ROOT, ".tmp", dirName ?? `import-sdk-${process.pid}-${Math.random().toString(36).slice(2)}`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "run.mjs");
  fs.writeFileSync(
    file,
    [
      'import * as Sentry from "@sentry/node";',
      "Sentry.init({ dsn: process.env.DSN, environment: 'test' });",
      // The same stack from both dialects' runs: a fingerprint keeps their issues apart.
      "if (process.env.FINGERPRINT) Sentry.getCurrentScope().setFingerprint([process.env.FINGERPRINT]);",
      "Sentry.captureException(new Error(process.env.MESSAGE));",
      "if (!(await Sentry.flush(30000))) process.exit(3);",
    ].join("\n"),
  );
  try {
    await execFileP(process.execPath, [file], {
      cwd: ROOT,
      env: { ...process.env, DSN: dsn, MESSAGE: message, FINGERPRINT: fingerprint ?? "" },
      timeout: 45_000,
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The old DSN with only its host (and port) changed to Errata's. */
function rehost(dsn: string, base: string): string {
  const u = new URL(dsn);
  u.host = new URL(base).host;
  return u.toString().replace(/\/$/, "");
}

async function issueTitles(db: Db, projectId: number): Promise<string[]> {
  const rows = await db.kysely.selectFrom("issues").select("title").where("project_id", "=", projectId).execute();
  return rows.map((r) => r.title);
}

/** `errata import sentry …` as a child process against a test database; resolves when it exits. */
function runCli(info: TestDatabase, args: string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, [CLI, "import", "sentry", ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: info.dataDir,
      LOG_LEVEL: "warn",
      IMPORT_ALLOW_PRIVATE: "true",
      ...(info.databaseUrl ? { DATABASE_URL: info.databaseUrl } : {}),
      ...env,
    } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d;
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

let source: TestServer;
let replay: Replay;
let token: string;
let webDsn: string;
let apiDsn: string;

beforeAll(async () => {
  [source, replay] = await Promise.all([startServer({ dialect: "sqlite" }), startReplay()]);
  await source.cli(
    "user",
    "create",
    "--email",
    "owner@acme.test",
    "--password",
    "a long test password 1",
    "--org",
    "acme",
    "--name",
    "Owner",
  );
  webDsn = await source.cli("project", "create", "--org", "acme", "--name", "Web", "--platform", "node");
  apiDsn = await source.cli("project", "create", "--org", "acme", "--name", "Api", "--platform", "python");
  token = await source.cli(
    "token",
    "create",
    "--email",
    "owner@acme.test",
    "--scopes",
    "org:read,project:read,project:write,member:read,member:write,event:read,event:write",
  );
  const rest = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${source.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${p}: ${await res.clone().text()}`).toBeLessThan(300);
  };
  await rest("POST", "/api/0/organizations/acme/teams/", { name: "Backend" });
  await rest("POST", "/api/0/projects/acme/api/teams/backend/");
  // A release with commits and a deploy, as sentry-cli would have set them on the source.
  await rest("POST", "/api/0/organizations/acme/releases/", {
    version: "web@1.0.0",
    projects: ["web"],
    ref: "v1.0.0",
    dateReleased: "2024-05-01T10:00:00Z",
    commits: [
      {
        id: "1111111111111111111111111111111111111111",
        repository: "acme/web",
        message: "Ship it",
        author_name: "Owner",
        author_email: "owner@acme.test",
        timestamp: "2024-05-01T09:00:00Z",
      },
    ],
  });
  await rest("POST", "/api/0/organizations/acme/releases/web%401.0.0/deploys/", {
    environment: "production",
    name: "first deploy",
    dateFinished: "2024-05-01T10:05:00Z",
  });
}, 180_000);

afterAll(async () => {
  await Promise.all([source?.stop(), replay?.close()]);
});

describe.each(await dialects())("import from Sentry's API (%s)", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let occupiedId: number;
  let services: ReturnType<typeof createServices>;
  let auth: Auth;

  beforeAll(async () => {
    let info: TestDatabase;
    ({ db, close, info } = await openTestDb(dialect));
    // Better Auth's tables: members are matched by their account's email.
    const config = loadConfig({ PUBLIC_URL: "http://127.0.0.1:9999", DATA_DIR: info.dataDir, IMPORT_ALLOW_PRIVATE: "true" });
    const secret = "import-test-secret-import-test-secret";
    auth = createAuth(db, config, secret);
    await migrateAuth(db, config, secret);
    services = createServices({ db, auth, config, log: createLogger("silent") });
    // A project already here takes id 1, the source's first project id: that one gets an alias.
    occupiedId = await writeTx(db, async (tx) => {
      const org = await insertOrg(tx, { slug: "locals", name: "Locals", now: 1 });
      await insertOrg(tx, { slug: "globex-here", name: "Globex here", now: 1 });
      return (await insertProject(tx, { orgId: org.id, slug: "occupier", name: "Occupier", platform: "other", now: 1 })).id;
    });
  });
  afterAll(async () => close());

  test("from a second Errata: keys unchanged, old DSNs (kept id and alias) deliver @sentry/node events; a second run changes nothing", async () => {
    const input: SentryImportInput = { url: source.url, token, org: "acme" };
    const oldWeb = new URL(webDsn);
    const oldApi = new URL(apiDsn);
    const webOldId = Number(oldWeb.pathname.slice(1));
    const apiOldId = Number(oldApi.pathname.slice(1));
    expect(webOldId).toBe(occupiedId);

    const first = await importer(db).importAsOperator(input);
    expect(actions(first)).toEqual(
      [
        "created organization acme",
        "created project api",
        "created project web",
        "created team backend",
        "created member owner@acme.test",
        "created alert_rule api/New issues and regressions",
        "created alert_rule web/New issues and regressions",
        "created release web@1.0.0",
        `created key api/Default (${oldApi.username.slice(0, 8)}…)`,
        `created key web/Default (${oldWeb.username.slice(0, 8)}…)`,
      ].sort(),
    );
    const snap = await snapshot(db, "acme");
    const api = snap?.projects.find((p) => p.slug === "api");
    const web = snap?.projects.find((p) => p.slug === "web");
    expect(api).toMatchObject({ id: apiOldId, name: "Api", platform: "python" });
    expect(web?.id).not.toBe(webOldId);
    expect(web).toMatchObject({ name: "Web", platform: "node" });
    expect(snap?.keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ slug: "api", public_key: oldApi.username, dsn_project_id: null, active: 1 }),
        expect.objectContaining({ slug: "web", public_key: oldWeb.username, dsn_project_id: webOldId, active: 1 }),
      ]),
    );
    // Errata links every existing project to an organization's first team, and "api" explicitly.
    expect(snap?.links).toEqual([
      { team: "backend", project: "api" },
      { team: "backend", project: "web" },
    ]);
    expect(snap?.invited).toEqual([{ email: "owner@acme.test", role: "owner", open: true, teams: [] }]);
    // The source's rule replaces the one a new project starts with; it sent nowhere there, nor here.
    expect(snap?.rules.map((r) => [r.project, r.name, r.triggers.newIssue, r.triggers.regression, r.channels])).toEqual([
      ["api", "New issues and regressions", true, true, []],
      ["web", "New issues and regressions", true, true, []],
    ]);
    expect(snap?.releases).toEqual([
      expect.objectContaining({
        version: "web@1.0.0",
        ref: "v1.0.0",
        dateReleased: Date.parse("2024-05-01T10:00:00Z"),
        projects: ["web"],
        commits: [
          {
            position: 0,
            repository: "acme/web",
            commit_id: "1111111111111111111111111111111111111111",
            author_email: "owner@acme.test",
            message: "Ship it",
            committed_at: Date.parse("2024-05-01T09:00:00Z"),
          },
        ],
        deploys: [
          { environment: "production", name: "first deploy", date_started: null, date_finished: Date.parse("2024-05-01T10:05:00Z") },
        ],
      }),
    ]);

    const handler = await startHandler(db);
    try {
      await sendWithSdk(rehost(webDsn, handler.base), "sent with the old web DSN");
      await sendWithSdk(rehost(apiDsn, handler.base), "sent with the old api DSN");
      expect((await drain(db, Date.now())).events).toBe(2);
    } finally {
      await handler.close();
    }
    expect(await issueTitles(db, Number(web?.id))).toEqual([expect.stringContaining("sent with the old web DSN")]);
    expect(await issueTitles(db, Number(api?.id))).toEqual([expect.stringContaining("sent with the old api DSN")]);
    expect(await issueTitles(db, occupiedId)).toEqual([]);

    const second = await importer(db).importAsOperator(input);
    expect(second.entries.every((e) => e.action === "unchanged")).toBe(true);
    expect(await snapshot(db, "acme")).toEqual(snap);
  }, 300_000);

  test("--issues from a second Errata: state, counts, latest event under the same issue; an SDK event after the switch regresses it", async () => {
    // On the source: an error from @sentry/node, then resolved there.
    const dirName = `import-history-${dialect}`;
    const message = `history that moves (${dialect})`;
    await sendWithSdk(webDsn, message, dirName, message);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    type Row = { id: string; shortId: string; title: string; firstSeen: string; lastSeen: string };
    const sourceIssue = await eventually(
      async () => {
        const res = await fetch(`${source.url}/api/0/projects/acme/web/issues/?query=`, { headers });
        return ((await res.json()) as Row[]).find((i) => i.title.includes(message));
      },
      60_000,
      "the source's issue",
    );
    const issueUrl = `${source.url}/api/0/organizations/acme/issues/${sourceIssue.id}/`;
    const put = await fetch(issueUrl, { method: "PUT", headers, body: JSON.stringify({ status: "resolved" }) });
    expect(put.status).toBe(200);
    const [sourceEvent] = (await (await fetch(`${issueUrl}events/`, { headers })).json()) as Array<{ eventID: string }>;

    const input: SentryImportInput = { url: source.url, token, org: "acme", issues: true, since: "30d" };
    const first = await importer(db).importAsOperator(input);
    const entry = first.entries.find((e) => e.kind === "issue" && e.name === `web/${sourceIssue.shortId}`);
    expect(entry).toMatchObject({ action: "created" });
    // The source's issue is newer than the old-DSN event here (the first test), which took its number.
    expect(entry?.note).toMatch(/^1 latest event; short id WEB-\d+ was taken here by an issue that arrived first: a new number was given$/);
    expect(first.entries.filter((e) => e.kind !== "issue").every((e) => e.action === "unchanged")).toBe(true);
    const imported = (await snapshot(db, "acme"))?.issues.find((i) => i.source_key === `web/${sourceIssue.id}`);
    expect(imported).toMatchObject({
      status: "resolved",
      event_count: 1,
      user_count: 0,
      first_seen: Date.parse(sourceIssue.firstSeen),
      last_seen: Date.parse(sourceIssue.lastSeen),
      events: [expect.objectContaining({ event_id: sourceEvent.eventID })],
    });
    const link = await db.kysely
      .selectFrom("import_links")
      .select("local_id")
      .where("kind", "=", "issue")
      .where("source_key", "=", `web/${sourceIssue.id}`)
      .executeTakeFirstOrThrow();
    const issueId = Number(link.local_id);

    // The same error from the same code, sent with the old DSN to Errata: the imported issue regresses.
    const handler = await startHandler(db);
    try {
      await sendWithSdk(rehost(webDsn, handler.base), message, dirName, message);
      expect((await drain(db, Date.now())).events).toBe(1);
    } finally {
      await handler.close();
    }
    const after = await db.kysely
      .selectFrom("issues")
      .select(["status", "substatus", "event_count"])
      .where("id", "=", issueId)
      .executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: "unresolved", substatus: "regressed" });
    expect(Number(after.event_count)).toBe(2);

    // A second run adds nothing and leaves what happened here since alone.
    const before = await snapshot(db, "acme");
    const second = await importer(db).importAsOperator(input);
    expect(second.entries.find((e) => e.kind === "issue" && e.name === `web/${sourceIssue.shortId}`)?.action).toBe("unchanged");
    expect(second.entries.every((e) => e.action === "unchanged")).toBe(true);
    expect(await snapshot(db, "acme")).toEqual(before);
  }, 300_000);

  test("--issues keeps every short id and the project's counter, whatever order the source lists them in", async () => {
    // An organization of this run's own on the source: the other tests import "acme" whole.
    const org = `shopco-${dialect}`;
    const email = `owner@${org}.test`;
    await source.cli("user", "create", "--email", email, "--password", "a long test password 1", "--org", org, "--name", "Owner");
    const dsn = new URL(await source.cli("project", "create", "--org", org, "--name", "Shop API", "--platform", "node"));
    const orgToken = await source.cli("token", "create", "--email", email, "--scopes", "org:read,project:read,member:read,event:read");
    const store = async (message: string) => {
      const res = await fetch(`${dsn.protocol}//${dsn.host}/api${dsn.pathname}/store/`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
        body: JSON.stringify({ platform: "node", fingerprint: [message], exception: { values: [{ type: "Error", value: message }] } }),
      });
      expect(res.status).toBe(200);
    };
    type Row = { shortId: string; title: string };
    const sourceIssues = async (n: number) =>
      eventually(
        async () => {
          const res = await fetch(`${source.url}/api/0/projects/${org}/shop-api/issues/?query=`, {
            headers: { authorization: `Bearer ${orgToken}` },
          });
          const rows = (await res.json()) as Row[];
          return rows.length === n ? rows : undefined;
        },
        60_000,
        `${n} issues on the source`,
      );
    // Created one after the other (SHOP-API-1, -2, -3), each digested before the next.
    for (const [i, message] of ["checkout first", "checkout second", "checkout third"].entries()) {
      await store(message);
      await sourceIssues(i + 1);
    }
    // The first is seen again: the source lists it first (last seen), then the third, the second.
    await store("checkout first");
    const listed = await eventually(
      async () => {
        const rows = await sourceIssues(3);
        return rows[0]?.title.includes("checkout first") ? rows : undefined;
      },
      60_000,
      "the first issue seen last",
    );
    expect(listed.map((r) => r.shortId)).toEqual(["SHOP-API-1", "SHOP-API-3", "SHOP-API-2"]);

    const report = await importer(db).importAsOperator({ url: source.url, token: orgToken, org, issues: true, since: "30d" });
    expect(report.entries.filter((e) => e.kind === "issue").map((e) => [e.name, e.action, e.note])).toEqual([
      ["shop-api/SHOP-API-1", "created", "2 latest events"],
      ["shop-api/SHOP-API-3", "created", "1 latest event"],
      ["shop-api/SHOP-API-2", "created", "1 latest event"],
    ]);
    const here = await db.kysely
      .selectFrom("issues as i")
      .innerJoin("projects as p", "p.id", "i.project_id")
      .innerJoin("organizations as o", "o.id", "p.org_id")
      .select(["i.title", "i.short_id", "p.next_short_id"])
      .where("o.slug", "=", org)
      .orderBy("i.short_id")
      .execute();
    // Every short id as on the source, so SHOP-API-2 in an old ticket opens the same issue here.
    const sourceNumber = new Map(listed.map((r) => [r.title, Number(r.shortId.split("-").pop())]));
    expect(here.map((r) => [r.title, Number(r.short_id)])).toEqual([...sourceNumber].sort((a, b) => a[1] - b[1]));
    // The counter continues after the highest: the next new issue here is SHOP-API-4.
    expect(here.map((r) => Number(r.next_short_id))).toEqual([4, 4, 4]);
    // Looked up by short id as Sentry's /shortids/ does: the issue that was SHOP-API-2 there.
    const reader = await createUserWithPassword(auth, {
      email: `reader-${dialect}@here.test`,
      password: "a long test password 1",
      name: "R",
    });
    const local = await findOrgBySlug(db, org);
    await writeTx(db, (tx) => upsertMember(tx, { orgId: local?.id ?? 0, userId: reader.id, role: "admin", now: 1 }));
    const viewer = { userId: reader.id, email: `reader-${dialect}@here.test`, name: "R" };
    const found = await services.issueRedirects.byShortId(viewer, org, "SHOP-API-2");
    const title = await db.kysely
      .selectFrom("issues")
      .select("title")
      .where("id", "=", found?.issueId ?? 0)
      .executeTakeFirst();
    expect(title?.title).toContain("checkout second");
  }, 300_000);

  test("the settings page's runs: owners only; progress and report in the run row; the token in none", async () => {
    const email = `runner-${dialect}@here.test`;
    const user = await createUserWithPassword(auth, { email, password: "a long test password 1", name: "Runner" });
    const viewer = { userId: user.id, email, name: "Runner" };
    const acme = await findOrgBySlug(db, "acme");
    await writeTx(db, (tx) => upsertMember(tx, { orgId: acme?.id ?? 0, userId: user.id, role: "admin", now: 1 }));
    const input = { url: source.url, token, org: "acme", dryRun: true };
    expect(await errorCode(services.importRuns.start(viewer, "acme", input))).toBe("forbidden");
    await writeTx(db, (tx) => upsertMember(tx, { orgId: acme?.id ?? 0, userId: user.id, role: "owner", now: 1 }));
    expect(await errorCode(services.importRuns.start(viewer, "acme", { ...input, url: " " }))).toBe("validation_failed");

    const ended = async (id: string) =>
      eventually(async () => {
        const r = await services.importRuns.status(viewer, "acme", id);
        return r.status === "running" ? undefined : r;
      }, 60_000);
    const started = await services.importRuns.start(viewer, "acme", input);
    expect(started.status).toBe("running");
    const done = await ended(started.id);
    expect(done).toMatchObject({ status: "done", error: null, report: { dryRun: true, organization: "acme" } });
    expect(done.progress.done).toBe(done.progress.total);
    expect(done.report?.entries.every((e) => e.action === "unchanged")).toBe(true);

    const refused = await ended((await services.importRuns.start(viewer, "acme", { ...input, token: "sntryu_wrong_token" })).id);
    expect(refused).toMatchObject({ status: "failed", error: { code: "import_source_unauthorized" }, report: null });

    const rows = await db.kysely.selectFrom("import_runs").selectAll().execute();
    expect(rows.length).toBe(2);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain("sntryu_wrong_token");
    // A run is read through its own organization only: as an owner of "locals" it is not there.
    const locals = await findOrgBySlug(db, "locals");
    await writeTx(db, (tx) => upsertMember(tx, { orgId: locals?.id ?? 0, userId: user.id, role: "owner", now: 1 }));
    expect(await errorCode(services.importRuns.status(viewer, "locals", started.id))).toBe("not_found");
  }, 180_000);

  test("from Sentry's documented answers: Link cursors, 429 + Retry-After waited out, secrets, scrubbing, links; dry run writes nothing", async () => {
    const input: SentryImportInput = {
      url: replay.url,
      token: REPLAY_TOKEN,
      org: "globex",
      into: "globex-here",
      issues: true,
      since: "30d",
    };
    const before = await snapshot(db, "globex-here");
    replay.armRateLimit();
    const dry = await importer(db).importAsOperator({ ...input, dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.entries.filter((e) => e.action === "created").length).toBe(16);
    expect(await snapshot(db, "globex-here")).toEqual(before);

    replay.armRateLimit();
    replay.teamsAt.length = 0;
    const waits: number[] = [];
    const r = await importer(db).importAsOperator(input, { onWait: (s) => waits.push(s) });
    expect(waits).toEqual([1]);
    expect(replay.teamsAt[1] - replay.teamsAt[0]).toBeGreaterThanOrEqual(950);
    expect(actions(r)).toEqual(
      [
        "unchanged organization globex-here",
        "created team mobile-team",
        "created team backend",
        "created project ios-app",
        "created project payments",
        `created key ios-app/Default (${IOS_KEY.public.slice(0, 8)}…)`,
        `created key ios-app/Old builds (${IOS_OLD_KEY.public.slice(0, 8)}…)`,
        `created key payments/Default (${PAYMENTS_KEY.public.slice(0, 8)}…)`,
        "created member ada@globex.test",
        "created member bob@globex.test",
        "created member carol@globex.test",
        "created alert_rule ios-app/New or regressed crash on iPhone in production",
        "created alert_rule ios-app/Spike",
        "skipped alert_rule ios-app/Send a notification for high priority issues",
        "skipped alert_rule ios-app/Latest release only",
        "created release ios@2.0.0",
        "created release payments@1.4.0",
        // IOS-APP-3 was last seen 60 days ago: outside --since 30d.
        "created issue ios-app/IOS-APP-1A",
        "created ownership ios-app",
        "skipped ownership payments",
      ].sort(),
    );
    const snap = await snapshot(db, "globex-here");
    expect(snap?.name).toBe("Globex here");
    expect(snap?.teams).toEqual([
      { slug: "backend", name: "Backend" },
      { slug: "mobile-team", name: "Mobile" },
    ]);
    expect(snap?.projects.map((p) => [p.id, p.slug, p.platform])).toEqual([
      [4242, "ios-app", "apple-ios"],
      [4243, "payments", "python-django"],
    ]);
    const ios = snap?.projects[0];
    expect(JSON.parse(String(ios?.settings)).scrubbing).toEqual({
      enabled: true,
      scrubIp: true,
      extraKeys: ["card_number"],
      safeKeys: ["order_id"],
    });
    expect(snap?.keys).toEqual(
      [
        {
          slug: "payments",
          public_key: PAYMENTS_KEY.public,
          secret_key: PAYMENTS_KEY.secret,
          label: "Default",
          active: 1,
          dsn_project_id: null,
        },
        { slug: "ios-app", public_key: IOS_KEY.public, secret_key: IOS_KEY.secret, label: "Default", active: 1, dsn_project_id: null },
        {
          slug: "ios-app",
          public_key: IOS_OLD_KEY.public,
          secret_key: IOS_OLD_KEY.secret,
          label: "Old builds",
          active: 0,
          dsn_project_id: null,
        },
      ].sort((a, b) => a.public_key.localeCompare(b.public_key)),
    );
    expect(snap?.links).toEqual([
      { team: "backend", project: "payments" },
      { team: "mobile-team", project: "ios-app" },
    ]);
    expect(snap?.invited).toEqual([
      { email: "ada@globex.test", role: "owner", open: true, teams: ["mobile-team"] },
      { email: "bob@globex.test", role: "viewer", open: true, teams: [] },
      { email: "carol@globex.test", role: "admin", open: true, teams: ["backend", "mobile-team"] },
    ]);
    // Fingerprint and stack-trace rules move as written when every line parses; ownership when its owners are here.
    const settingsOf = (slug: string) => JSON.parse(String(snap?.projects.find((p) => p.slug === slug)?.settings));
    expect(settingsOf("ios-app")).toMatchObject({
      fingerprintingRules: "error.type:TypeError -> type-error",
      groupingEnhancements: "path:**/Pods/** -app",
    });
    expect(settingsOf("payments").fingerprintingRules).toBeUndefined();
    const notesOf = (kind: string, name: string) => r.entries.find((e) => e.kind === kind && e.name === name)?.note ?? "";
    expect(notesOf("project", "payments")).toMatch(/fingerprint rules not moved: line 1/);
    expect(snap?.ownership).toEqual([
      { project: "ios-app", raw: "path:src/ios/* #mobile-team", fallthrough: 0, auto_assignment: "suspect", codeowners_auto_sync: 1 },
    ]);
    expect(notesOf("ownership", "payments")).toMatch(/carol@globex\.test not members here yet/);
    // Sentry writes its 42nd issue IOS-APP-1A (base 32): Errata cannot show that, so the issue gets
    // a number above the source's highest (42) and the old id stays an alias for it.
    expect(notesOf("issue", "ios-app/IOS-APP-1A")).toMatch(/IOS-APP-1A \(Sentry's base 32\) is IOS-APP-43 here; the old id still finds it/);
    // Alert rules: what moved, with which channels; what did not, and why (the report says it).
    const ruleNotes = Object.fromEntries(r.entries.filter((e) => e.kind === "alert_rule").map((e) => [e.name, e.note ?? ""]));
    expect(ruleNotes["ios-app/Send a notification for high priority issues"]).toMatch(/no issue priority/);
    expect(ruleNotes["ios-app/Latest release only"]).toMatch(/“latest release” filter/);
    expect(ruleNotes["ios-app/Spike"]).toMatch(/issue owners names no fallthrough: the project's ownership setting gives it \(no one\)/);
    expect(ruleNotes["ios-app/New or regressed crash on iPhone in production"]).toMatch(
      /SlackNotifyServiceAction not moved: .*incoming-webhook/,
    );
    expect(snap?.channels).toEqual([
      { project: "ios-app", name: "Email ada@globex.test", kind: "email", config: { to: ["ada@globex.test"] } },
      { project: "ios-app", name: "Email team backend", kind: "email", config: { to: ["carol@globex.test"] } },
      { project: "ios-app", name: "Project members (email)", kind: "email", config: { to: [] } },
      { project: "ios-app", name: "Webhook hooks.globex.test", kind: "webhook", config: { url: "https://hooks.globex.test/sentry" } },
      { project: "payments", name: "Project members (email)", kind: "email", config: { to: [] } },
    ]);
    expect(snap?.rules).toEqual([
      {
        project: "ios-app",
        name: "New or regressed crash on iPhone in production",
        enabled: 1,
        triggers: { newIssue: true, regression: true, unignored: false, frequency: null, crashFree: null, match: "any" },
        filters: {
          environments: ["production"],
          levels: ["error", "fatal"],
          tags: [{ key: "device", op: "equals", value: "iPhone" }],
          maxIssueAgeMinutes: null,
          inAppOnly: false,
          query: "",
        },
        // Mail to issue owners is Errata's issue-owner target, with Sentry's fallthrough.
        channels: ['webhook {"url":"https://hooks.globex.test/sentry"}'],
        throttle: 60,
        cap: 60,
        targets: [{ type: "issue_owners", fallthrough: "active_members" }],
      },
      expect.objectContaining({
        project: "ios-app",
        name: "Spike",
        triggers: {
          newIssue: false,
          regression: false,
          unignored: false,
          frequency: { events: 100, users: 20, minutes: 60 },
          crashFree: null,
          match: "any",
        },
        channels: ['email {"to":["ada@globex.test"]}', 'email {"to":["carol@globex.test"]}'],
        throttle: 30,
        // its issue-owner mail names no fallthrough: ios-app's ownership switch is off → no one
        targets: [{ type: "issue_owners", fallthrough: "no_one" }],
      }),
      // The source has no rules for payments: the project keeps the rule it started with.
      expect.objectContaining({ project: "payments", name: "New issues and regressions", channels: ['email {"to":[]}'] }),
    ]);
    expect(snap?.releases).toEqual([
      {
        version: "ios@2.0.0",
        createdAt: Date.parse("2024-03-05T09:00:00Z"),
        ref: "v2.0.0",
        url: "https://apps.globex.test/ios/2.0.0",
        dateReleased: Date.parse("2024-03-05T12:00:00Z"),
        status: "open",
        projects: ["ios-app"],
        commits: [
          {
            position: 0,
            repository: "globex/ios",
            commit_id: IOS_COMMITS[0].id,
            author_email: "ada@globex.test",
            message: "Fix the crash on launch",
            committed_at: Date.parse("2024-03-05T08:00:00Z"),
          },
          {
            position: 1,
            repository: "globex/ios",
            commit_id: IOS_COMMITS[1].id,
            author_email: "carol@globex.test",
            message: "Bump version",
            committed_at: Date.parse("2024-03-04T17:00:00Z"),
          },
        ],
        deploys: [
          { environment: "staging", name: null, date_started: null, date_finished: Date.parse("2024-03-05T10:00:00Z") },
          {
            environment: "production",
            name: "ios 2.0.0 to the App Store",
            date_started: Date.parse("2024-03-05T11:00:00Z"),
            date_finished: Date.parse("2024-03-05T12:00:00Z"),
          },
        ],
      },
      expect.objectContaining({ version: "payments@1.4.0", projects: ["payments"], commits: [], deploys: [] }),
    ]);
    // The issue keeps the source's state, team, dates and counts; its latest events went through
    // normalising and grouping (Sentry's entries back to the SDK's shape) and sit under it.
    const [sourceIssue] = iosIssues();
    expect(snap?.issues).toEqual([
      {
        source_key: "ios-app/5001",
        slug: "ios-app",
        title: "TypeError: undefined is not an object",
        level: "error",
        status: "resolved",
        substatus: "resolved",
        first_seen: Date.parse(sourceIssue.firstSeen),
        last_seen: Date.parse(sourceIssue.lastSeen),
        event_count: 1234,
        user_count: 56,
        resolution: JSON.stringify({ kind: "now" }),
        assignee_user_id: null,
        team: "mobile-team",
        last_event_id: IOS_EVENT_IDS[0],
        events: [...IOS_EVENT_IDS]
          .sort()
          .map((event_id) => ({ event_id, release: "ios@2.0.0", environment: "production", level: "error" })),
      },
    ]);
    const stored = await db.kysely
      .selectFrom("events")
      .select(["payload", "title", "culprit"])
      .where("event_id", "=", IOS_EVENT_IDS[0])
      .executeTakeFirstOrThrow();
    const payload = decodePayload(stored.payload);
    expect(stored.title).toBe("TypeError: undefined is not an object");
    expect(payload).toMatchObject({
      platform: "cocoa",
      tags: expect.arrayContaining([
        ["device", "iPhone"],
        ["screen", "checkout"],
      ]),
      user: expect.objectContaining({ id: "u-1" }),
      exception: {
        values: [
          expect.objectContaining({
            type: "TypeError",
            stacktrace: {
              frames: [expect.objectContaining({ function: "didFinishLaunching", lineno: 42, context_line: "  x!.run()", in_app: true })],
            },
          }),
        ],
      },
    });
    // A new project made here after the import does not collide with the kept ids.
    const next = await writeTx(db, async (tx) =>
      insertProject(tx, { orgId: (await findOrgBySlug(tx, "locals"))?.id ?? 0, slug: "later", name: "Later", platform: "other", now: 1 }),
    );
    expect(next.id).toBeGreaterThan(4243);

    // The old DSN (secret half included, as old SDKs send it) with only the host changed.
    const handler = await startHandler(db);
    try {
      await sendWithSdk(`http://${IOS_KEY.public}:${IOS_KEY.secret}@${new URL(handler.base).host}/4242`, "ios via the old DSN");
      expect((await drain(db, Date.now())).events).toBe(1);
    } finally {
      await handler.close();
    }
    // Beside the imported issue, the SDK's event made its own.
    expect((await issueTitles(db, 4242)).sort()).toEqual(["Error: ios via the old DSN", "TypeError: undefined is not an object"]);

    // The page's path: owners of the organization only; a second run changes nothing.
    const user = await createUserWithPassword(auth, {
      email: `boss-${dialect}@here.test`,
      password: "a long test password 1",
      name: "Boss",
    });
    const viewer = { userId: user.id, email: `boss-${dialect}@here.test`, name: "Boss" };
    const here = await findOrgBySlug(db, "globex-here");
    await writeTx(db, (tx) => upsertMember(tx, { orgId: here?.id ?? 0, userId: user.id, role: "admin", now: 1 }));
    expect(await errorCode(services.imports.importInto(viewer, { ...input, into: "globex-here" }))).toBe("forbidden");
    await writeTx(db, (tx) => upsertMember(tx, { orgId: here?.id ?? 0, userId: user.id, role: "owner", now: 1 }));
    const again = await services.imports.importInto(viewer, { ...input, into: "globex-here" });
    expect((await services.issueRedirects.byShortId(viewer, "globex-here", "IOS-APP-1A"))?.project.slug).toBe("ios-app");
    expect(await services.issueRedirects.byShortId(viewer, "globex-here", "IOS-APP-1B")).toBeNull();
    // Unchanged, but for what never moves (the two rules Errata cannot express, said again).
    expect(again.entries.filter((e) => e.action !== "unchanged").map((e) => `${e.action} ${e.name}`)).toEqual([
      "skipped ios-app/Send a notification for high priority issues",
      "skipped ios-app/Latest release only",
      "skipped payments",
    ]);
    expect(await snapshot(db, "globex-here")).toEqual(snap);

    // The CLI killed right after writing the first project, then run again, ends in the same state.
    const fresh = await createTestDatabase(dialect);
    try {
      // The CLI migrates the empty database; a dry run prints the report and writes nothing.
      const pre = runCli(fresh, ["--url", replay.url, "--token", REPLAY_TOKEN, "--org", "globex", "--issues", "--dry-run"]);
      expect(await pre.exited, pre.err()).toBe(0);
      expect(pre.out()).toMatch(/^Dry run: nothing was written/);
      expect(pre.out()).toContain("17 created, 0 updated, 0 unchanged, 3 skipped.");
      const args = ["--url", replay.url, "--token", REPLAY_TOKEN, "--org", "globex", "--into", "globex-here", "--issues", "--since", "30d"];
      const freshDb = openDb(fresh.config);
      try {
        await writeTx(freshDb, async (tx) => {
          await insertOrg(tx, { slug: "globex-here", name: "Globex here", now: 1 });
        });
        const killed = runCli(fresh, args, { ERRATA_TEST_IMPORT_STALL: "project ios-app" });
        await waitFor(
          () => /\] project ios-app\n/.test(killed.err()),
          () => killed.err(),
        );
        killed.child.kill("SIGKILL");
        await killed.exited;
        const half = await snapshot(freshDb, "globex-here");
        expect(await findOrgBySlug(freshDb, "globex")).toBeUndefined();
        expect(half?.projects.map((p) => p.slug)).toEqual(["ios-app"]);
        expect(half?.keys.length).toBe(2);

        const resumed = runCli(fresh, [...args, "--json"]);
        expect(await resumed.exited, resumed.err()).toBe(0);
        const report = JSON.parse(resumed.out()) as ImportReport;
        expect(report.entries.filter((e) => e.action === "created").map((e) => e.name)).toEqual([
          "payments",
          expect.stringMatching(/^payments\/Default/),
          "ada@globex.test",
          "bob@globex.test",
          "carol@globex.test",
          "ios-app",
          "ios-app/New or regressed crash on iPhone in production",
          "ios-app/Spike",
          "ios@2.0.0",
          "payments@1.4.0",
          "ios-app/IOS-APP-1A",
        ]);
        expect(await snapshot(freshDb, "globex-here")).toEqual(snap);
      } finally {
        await freshDb.close();
      }
    } finally {
      await fresh.drop();
    }

    // An owner sends Carol's imported invitation; accepting it puts her in her Sentry teams.
    const carol = await db.kysely.selectFrom("invitations").select("id").where("email", "=", "carol@globex.test").executeTakeFirstOrThrow();
    const sent = await services.members.resend(viewer, "globex-here", Number(carol.id), { send: false });
    const tokenOf = new URL(sent.link).pathname.split("/").pop() ?? "";
    await services.members.accept(tokenOf, null, { name: "Carol", password: "a long test password 2" });
    const carolId = (await listMembers(db, here?.id ?? 0)).find((m) => m.email === "carol@globex.test")?.userId ?? "";
    expect(carolId).not.toBe("");
    const carolTeams = await db.kysely
      .selectFrom("team_members")
      .innerJoin("teams", "teams.id", "team_members.team_id")
      .select("teams.slug")
      .where("team_members.user_id", "=", carolId)
      .orderBy("teams.slug")
      .execute();
    expect(carolTeams.map((t) => t.slug)).toEqual(["backend", "mobile-team"]);

    // Ada's imported invitation (owner, mobile-team) answered by the operator instead: `errata user
    // create` makes her the owner, and the invitation is no longer pending beside her.
    await services.operator.createOwner({ email: "ada@globex.test", password: "a long test password 3", orgSlug: "globex-here" });
    const ada = (await listMembers(db, here?.id ?? 0)).find((m) => m.email === "ada@globex.test");
    expect(ada?.role).toBe("owner");
    const invited = await db.kysely
      .selectFrom("invitations")
      .select(["email", "accepted_at", "accepted_user_id"])
      .where("org_id", "=", here?.id ?? 0)
      .where("email", "=", "ada@globex.test")
      .execute();
    expect(invited.map((i) => [i.accepted_at !== null, i.accepted_user_id])).toEqual([[true, ada?.userId]]);
    const pending = await services.members.pendingInvitations(viewer, "globex-here");
    expect(pending.map((i) => i.email)).not.toContain("ada@globex.test");
    expect(pending.map((i) => i.email)).toContain("bob@globex.test");
    const adaTeams = await db.kysely
      .selectFrom("team_members")
      .innerJoin("teams", "teams.id", "team_members.team_id")
      .select("teams.slug")
      .where("team_members.user_id", "=", ada?.userId ?? "")
      .execute();
    expect(adaTeams.map((t) => t.slug)).toContain("mobile-team");
  }, 300_000);
});

async function waitFor(cond: () => boolean, what: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out; output so far:\n${what()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(await dialects())("bad input is refused whole (%s)", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  const counts = async () => {
    const n = async (t: "organizations" | "teams" | "projects" | "project_keys") =>
      Number(
        (
          await db.kysely
            .selectFrom(t)
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirst()
        )?.n ?? 0,
      );
    return { orgs: await n("organizations"), teams: await n("teams"), projects: await n("projects"), keys: await n("project_keys") };
  };

  test("unreachable, refused by policy, wrong token, HTML, unknown organization", async () => {
    const start = await counts();
    const replayInput = { url: replay.url, token: REPLAY_TOKEN, org: "globex" };
    expect(await errorCode(importer(db).importAsOperator({ ...replayInput, url: "http://127.0.0.1:1" }))).toBe("import_source_unreachable");
    expect(await errorCode(importer(db).importAsOperator({ ...replayInput, url: "not a url" }))).toBe("import_source_unreachable");
    // The installation's own policy (IMPORT_ALLOW_PRIVATE unset): refused, and the message names the setting.
    const refused = await importer(db, loadConfig({}).import)
      .importAsOperator(replayInput)
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(refused instanceof AppError && refused.code).toBe("import_source_unreachable");
    expect(String((refused as Error).message)).toContain("IMPORT_ALLOW_PRIVATE=true");
    expect(String((refused as Error).message)).toContain("IMPORT_ALLOW_HOSTS");
    expect(await errorCode(importer(db).importAsOperator({ url: source.url, token: "errata_wrong", org: "acme" }))).toBe(
      "import_source_unauthorized",
    );
    expect(await errorCode(importer(db).importAsOperator({ ...replayInput, token: "wrong" }))).toBe("import_source_unauthorized");
    expect(await errorCode(importer(db).importAsOperator({ ...replayInput, url: `${replay.url}/html` }))).toBe("import_not_sentry");
    expect(await errorCode(importer(db).importAsOperator({ ...replayInput, org: "initech" }))).toBe("import_source_not_found");
    expect(await errorCode(importer(db).importAsOperator({ ...replayInput, into: "nowhere" }))).toBe("not_found");
    expect(await counts()).toEqual(start);
  });

  test("a project slug here with other keys, a key of another organization here: nothing imported", async () => {
    await writeTx(db, async (tx) => {
      const org = await insertOrg(tx, { slug: "has-payments", name: "Has payments", now: 1 });
      const p = await insertProject(tx, { orgId: org.id, slug: "payments", name: "Payments", platform: "python", now: 1 });
      await insertKey(tx, { projectId: p.id, publicKey: "ab".repeat(16), label: "Default", now: 1 });
    });
    const start = await counts();
    const input = { url: replay.url, token: REPLAY_TOKEN, org: "globex" };
    const slugClash = importer(db).importAsOperator({ ...input, into: "has-payments" });
    expect(await errorCode(slugClash)).toBe("import_project_conflict");
    expect(await counts()).toEqual(start);

    // Now the payments key itself sits in a project of another organization.
    await writeTx(db, async (tx) => {
      const org = await insertOrg(tx, { slug: "squatter", name: "Squatter", now: 1 });
      const p = await insertProject(tx, { orgId: org.id, slug: "other", name: "Other", platform: "other", now: 1 });
      await insertKey(tx, { projectId: p.id, publicKey: PAYMENTS_KEY.public, label: "Default", now: 1 });
    });
    const withSquatter = await counts();
    const err = await importer(db)
      .importAsOperator(input)
      .catch((e: unknown) => e as AppError);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("import_key_conflict");
    expect((err as AppError).message).toContain(PAYMENTS_KEY.public);
    expect(await counts()).toEqual(withSquatter);
    expect(await findOrgBySlug(db, "globex")).toBeUndefined();
  });
});
