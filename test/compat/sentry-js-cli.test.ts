/**
 * Sentry's JS command-line client, the npm package `sentry` 0.49 (a devDependency, unchanged),
 * against the built server on SQLite and PostgreSQL (issue 28). It needs Node ≥ 22.15: CI's Node
 * 22 and 24 runs use their own binary, the Node 20 run the Node 22 that .ci/run keeps in
 * .ci/cache (installed by the suite when missing). Configured as a self-hosted user configures it:
 * SENTRY_URL and SENTRY_AUTH_TOKEN; its telemetry, update check and response cache are off.
 *
 * Each command's output is checked for the data, and each write through the REST API.
 * Not run: `token list` (org auth tokens), `alert`, `dashboard`, `integration`, `span`
 * and `snapshots` (Errata has no such API; they print Sentry's 404 sentence); `explore`,
 * `log list`, `trace list` and `project delete` wait for issue-28a (the skipped block below).
 * Traces (issue 41): a distributed trace sent by the real @sentry/node across two projects is read
 * back with `trace view`, `span view`, `trace logs`, `log view` (its attributes), `event analytics`,
 * and `auth login --url` validates its token against Errata.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendReplay } from "../helpers/replay-envelopes.js";
import { sendDistributedTrace } from "../helpers/sdk-trace.js";
import { modernNode, RELEASE, type Seeded, seedAcme, TITLE, USER_EMAIL, USER_NAME } from "../helpers/sentry-clients.js";
import { eventually, ROOT, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

const execFileP = promisify(execFile);
const BIN = path.join(ROOT, "node_modules", "sentry", "dist", "bin.cjs");
const node = await modernNode();

interface Run {
  code: number;
  out: string;
}

function cliFor(server: TestServer, token: string, home: string) {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    SENTRY_CONFIG_DIR: path.join(home, ".sentry"),
    SENTRY_URL: server.url,
    SENTRY_AUTH_TOKEN: token,
    SENTRY_CLI_NO_TELEMETRY: "1",
    SENTRY_CLI_NO_UPDATE_CHECK: "1",
    SENTRY_NO_CACHE: "1",
    NO_COLOR: "1",
  };
  /** Runs `sentry <args>`: exit code and stdout+stderr (the CLI writes its notes to stderr). */
  async function run(...args: string[]): Promise<Run> {
    try {
      const { stdout, stderr } = await execFileP(node as string, [BIN, ...args], {
        cwd: home,
        env: env as NodeJS.ProcessEnv,
        timeout: 60_000,
      });
      return { code: 0, out: `${stdout}\n${stderr}` };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === "number" ? e.code : 1, out: `${e.stdout ?? ""}\n${e.stderr ?? ""}` };
    }
  }
  /** A command that must succeed: its output. */
  async function ok(...args: string[]): Promise<string> {
    const r = await run(...args);
    expect(r.code, `sentry ${args.join(" ")} exited ${r.code}:\n${r.out}`).toBe(0);
    return r.out;
  }
  return { run, ok };
}

describe.skipIf(!node).each(await dialects())("the sentry npm CLI against Errata on %s", (dialect) => {
  let server: TestServer;
  let s: Seeded;
  let cli: ReturnType<typeof cliFor>;
  let replayId: string;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "errata-sentry-js-"));
  const issueStatus = async () => (await s.api("GET", `/api/0/organizations/acme/issues/${s.issueId}/`)).body.status;

  beforeAll(async () => {
    server = await startServer({ dialect });
    s = await seedAcme(server);
    cli = cliFor(server, s.token, home);
    // A session replay that saw the seeded error (issue 40).
    replayId = await sendReplay(s.dsn, { errorIds: [s.eventId], user: { id: "u1", email: "shopper@example.com" } });
    await eventually(
      async () => (await s.api("GET", `/api/0/organizations/acme/replays/${replayId}/`)).body?.data?.count_segments === 2,
      30_000,
      "the replay",
    );
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  test("replay list, view and download: the replay, its errors, clicks and activity, its rrweb events; an issue's replays", async () => {
    const list = await cli.ok("replay", "list", "acme/web");
    expect(list).toMatch(new RegExp(`│ ${replayId} │ .* │ +1 │ +2 │ shopper@`));
    const view = await cli.ok("replay", "view", `acme/${replayId}`);
    expect(view).toMatch(/Errors +│ 1 /);
    expect(view).toMatch(/Rage Clicks +│ 1 /);
    expect(view).toMatch(/Dead Clicks +│ 1 /);
    expect(view).toContain("https://shop.example/checkout");
    expect(view).toContain(s.eventId);
    // The activity is read from the downloaded segments: clicks, the scrubbed fetch, the dead click.
    expect(view).toContain("ui.slowClickDetected");
    expect(view).toContain("api?token=[Filtered]");
    const out = path.join(home, "replay.json");
    expect(await cli.ok("replay", "download", `acme/${replayId}`, "--output", out)).toContain(`Downloaded replay ${replayId}`);
    const events = JSON.parse(fs.readFileSync(out, "utf8")) as Array<{ type: number }>;
    expect(events[0]).toMatchObject({ type: 4, data: { href: "https://shop.example/checkout" } });
    expect(events.length).toBe(7);
    const issue = JSON.parse(await cli.ok("issue", "view", s.shortId, "--json", "--fields", "shortId,replayIds")) as Record<
      string,
      unknown
    >;
    expect(issue).toEqual({ shortId: s.shortId, replayIds: [replayId] });
  });

  test("auth whoami, org list and org view", async () => {
    expect(await cli.ok("auth", "whoami")).toContain(`${USER_NAME} <${USER_EMAIL}>`);
    expect(await cli.ok("org", "list")).toMatch(/│ acme +│ acme +│/);
    const org = await cli.ok("org", "view", "acme");
    expect(org).toMatch(/Your Role +│ owner/);
    expect(org).toMatch(new RegExp(`Created +│ .*${new Date().getFullYear()}`));
  });

  test("project list and project view, with its DSN and first event", async () => {
    expect(await cli.ok("project", "list")).toMatch(/│ acme +│ web +│ web +│ node +│/);
    const view = await cli.ok("project", "view", "acme/web");
    expect(view).toContain(s.dsn.toString().replace(/\/$/, ""));
    expect(view).toMatch(/First Event +│ \d/);
  });

  test("issue list for the org and the project, and issue view by short and numeric id", async () => {
    for (const target of [[], ["acme/web"]]) {
      const list = await cli.ok("issue", "list", ...target);
      expect(list, target.join()).toContain(s.shortId);
    }
    for (const ref of [`acme/${s.shortId}`, s.issueId]) {
      const view = await cli.ok("issue", "view", ref);
      expect(view, ref).toContain(`${s.shortId}: ${TITLE}`);
      expect(view).toMatch(/Culprit +│ checkout \(app\/cart\.js\)/);
      expect(view).toContain(`Release  │ ${RELEASE}`);
      expect(view).toContain("shopper@example.com");
    }
    const json = JSON.parse(await cli.ok("issue", "view", s.shortId, "--json", "--fields", "shortId,status,title")) as Record<
      string,
      unknown
    >;
    expect(json).toEqual({ shortId: s.shortId, status: "unresolved", title: TITLE });
  });

  test("issue events, event view with its frame and source, event list", async () => {
    expect(await cli.ok("issue", "events", s.shortId)).toContain(s.eventId);
    expect(await cli.ok("event", "list", s.shortId)).toContain(s.eventId);
    const event = await cli.ok("event", "view", `acme/web/${s.eventId}`);
    expect(event).toContain("mechanism: onunhandledrejection (unhandled)");
    expect(event).toContain("at checkout (app/cart.js:12:17) [in-app]");
    expect(event).toMatch(/> +12 \| {3}return cart\.total;/);
  });

  test("issue tags: an issue's tag values", async () => {
    expect(await cli.ok("issue", "tags", s.shortId, "environment")).toMatch(/│ production +│ +1 │ 100\.0% │/);
    expect(await cli.ok("issue", "tags", s.shortId, "region")).toMatch(/│ eu-west +│ +1 │/);
  });

  test("issue resolve, unresolve and archive by short id, read back through the API", async () => {
    expect(await cli.ok("issue", "resolve", s.shortId)).toContain("Resolved");
    expect(await issueStatus()).toBe("resolved");
    expect(await cli.ok("issue", "unresolve", s.shortId)).toContain("Reopened");
    expect(await issueStatus()).toBe("unresolved");
    expect(await cli.ok("issue", "archive", s.shortId)).toContain("Archived");
    expect(await issueStatus()).toBe("ignored");
    await cli.ok("issue", "unresolve", s.shortId);
  });

  test("releases: list, view, create, finalize, deploy, deploys and delete", async () => {
    expect(await cli.ok("release", "list", "acme/web")).toContain(RELEASE);
    expect(await cli.ok("release", "view", `acme/${RELEASE}`)).toMatch(/New Issues +│ 1/);
    const v = "web@2.0.0";
    expect(await cli.ok("release", "create", `acme/${v}`, "--project", "web")).toContain(`Release Created: ${v}`);
    await cli.ok("release", "finalize", `acme/${v}`);
    expect((await s.api("GET", `/api/0/organizations/acme/releases/${encodeURIComponent(v)}/`)).body.dateReleased).toEqual(
      expect.any(String),
    );
    expect(await cli.ok("release", "deploy", `acme/${v}`, "production")).toMatch(/Environment +│ production/);
    expect(await cli.ok("release", "deploys", `acme/${v}`)).toContain("production");
    expect(await cli.ok("release", "delete", `acme/${v}`, "--yes")).toContain(`Release ${v} deleted from acme.`);
    expect((await s.api("GET", `/api/0/organizations/acme/releases/${encodeURIComponent(v)}/`)).status).toBe(404);
  });

  test("project create makes the org's first team and joins it; team list, dsn list", async () => {
    const created = await cli.run("project", "create", "acme/checkout:python");
    expect(created.code, created.out).toBe(0);
    expect(created.out).toContain("Created project 'checkout' in acme");
    // The CLI adds its user to the team it made (members/me/teams/…): no warning that it could not.
    expect(created.out).not.toContain("could not be added");
    expect((await s.api("GET", "/api/0/projects/acme/checkout/")).body).toMatchObject({
      platform: "python",
      teams: [{ slug: "checkout" }],
    });
    expect(await cli.ok("team", "list")).toMatch(/│ acme +│ checkout +│ checkout +│ +1 │/);
    // A missing team writes nothing (the project is not left behind without it).
    const refused = await cli.run("project", "create", "acme/orphan:node", "--team", "no-such-team");
    expect(refused.code).not.toBe(0);
    expect((await s.api("GET", "/api/0/projects/acme/orphan/")).status).toBe(404);
    const keys = await cli.ok("dsn", "list", "acme/web");
    expect(keys).toContain(s.dsn.toString().replace(/\/$/, ""));
  });

  test("repos, monitors and feedback: empty lists as sentences; raw api calls", async () => {
    expect(await cli.ok("repo", "list")).toContain("No repositories found.");
    expect(await cli.ok("monitor", "list")).toContain("No monitors found.");
    expect(await cli.ok("feedback", "list", "acme/")).toContain("No feedback found.");
    const org = JSON.parse((await cli.ok("api", "organizations/acme/")).trim()) as Record<string, unknown>;
    expect(org).toMatchObject({ slug: "acme", links: { organizationUrl: server.url } });
  });

  test("Seer: the CLI prints that it is not available", async () => {
    const r = await cli.run("issue", "explain", s.shortId);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("not available on this Errata installation");
  });
});

// The query API and project DELETE (issue 28).
describe.skipIf(!node).each(await dialects())("the sentry npm CLI: explore, logs, traces and project delete on %s", (dialect) => {
  let server: TestServer;
  let s: Seeded;
  let cli: ReturnType<typeof cliFor>;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "errata-sentry-js-"));

  beforeAll(async () => {
    server = await startServer({ dialect });
    s = await seedAcme(server);
    cli = cliFor(server, s.token, home);
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  test("explore: the org's error events", async () => {
    expect(await cli.ok("explore", "acme/")).toContain(TITLE.slice(0, 20));
  });

  test("log list and trace list: empty as sentences", async () => {
    expect((await cli.run("log", "list", "acme/web")).code).toBe(0);
    expect((await cli.run("trace", "list", "acme/web")).code).toBe(0);
  });

  test("project delete", async () => {
    await cli.ok("project", "create", "acme/doomed:node");
    await cli.ok("project", "delete", "acme/doomed", "--yes");
    expect((await s.api("GET", "/api/0/projects/acme/doomed/")).status).toBe(404);
  });
});

// Traces, logs and metrics across projects, and the token login (issue 41).
describe.skipIf(!node).each(await dialects())("the sentry npm CLI: traces, spans, logs and event analytics on %s", (dialect) => {
  let server: TestServer;
  let s: Seeded;
  let cli: ReturnType<typeof cliFor>;
  let traceId: string;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "errata-sentry-js-"));

  beforeAll(async () => {
    server = await startServer({ dialect });
    s = await seedAcme(server);
    const apiDsn = await server.cli("project", "create", "--org", "acme", "--name", "api", "--platform", "node");
    ({ traceId } = await sendDistributedTrace(
      s.dsn,
      apiDsn,
      async (id) => (await s.api("GET", `/api/0/organizations/acme/trace-meta/${id}/`)).body,
    ));
    cli = cliFor(server, s.token, home);
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  test("auth login --url with a token: the token is validated against Errata and the login succeeds", async () => {
    const loginHome = fs.mkdtempSync(path.join(os.tmpdir(), "errata-sentry-login-"));
    try {
      const bare = cliFor(server, "", loginHome);
      const r = await bare.run("auth", "login", "--url", server.url, "--token", s.token);
      expect(r.code, r.out).toBe(0);
      expect(r.out).not.toMatch(/404|failed/i);
      expect(await bare.ok("auth", "whoami")).toContain(USER_EMAIL);
    } finally {
      fs.rmSync(loginHome, { recursive: true, force: true });
    }
  });

  test("trace view: both services' spans, the root transaction and the span count", async () => {
    const out = await cli.ok("trace", "view", `acme/${traceId}`, "--spans", "10");
    expect(out).toContain("GET /checkout");
    expect(out).toContain("POST /api/pay");
    expect(out).toContain("SELECT * FROM payments WHERE cart = $1");
    expect(out).toMatch(/Spans +│ 4/);
    expect(out).toMatch(/Projects +│ .*(web, api|api, web)/);
  });

  test("span view: one span's details and attributes", async () => {
    const tree = (await s.api("GET", `/api/0/organizations/acme/trace/${traceId}/`)).body as Array<Record<string, unknown>>;
    const flat: Array<Record<string, unknown>> = [];
    const walk = (n: Record<string, unknown>) => {
      flat.push(n);
      for (const c of (n.children as Array<Record<string, unknown>> | undefined) ?? []) walk(c);
    };
    for (const n of tree) walk(n);
    const db = flat.find((n) => n.op === "db") as Record<string, unknown>;
    expect(db.project_slug).toBe("api");
    const out = await cli.ok("span", "view", `acme/api/${traceId}`, db.span_id as string);
    expect(out).toContain("SELECT * FROM payments WHERE cart = $1");
    expect(out).toContain(db.span_id as string);
    expect(out).toMatch(/db/);
  });

  test("trace logs: the trace's logs from both services, newest first", async () => {
    // The table wraps long messages; the rows themselves are checked in --json.
    expect(await cli.ok("trace", "logs", `acme/${traceId}`)).toContain(`Showing 3 logs for trace ${traceId}`);
    const out = await cli.ok("trace", "logs", `acme/${traceId}`, "--json");
    expect(out).toContain("payment failed: card declined");
    expect(out).toContain("payment started");
    expect(out).toContain("checkout page requested");
    expect(out.indexOf("payment failed")).toBeLessThan(out.indexOf("checkout page requested"));
  });

  test("log view: a log with its attributes", async () => {
    const logs = await s.api("GET", `/api/0/organizations/acme/trace-logs/?traceId=${traceId}&sort=-timestamp`);
    const failed = (logs.body.data as Array<{ id: string; message: string }>).find((l) => l.message.startsWith("payment failed"));
    expect(failed).toBeDefined();
    const out = await cli.ok("log", "view", "acme/api", failed?.id as string);
    expect(out).toContain("payment failed: card declined");
    expect(out).toContain(traceId);
    // The trace-items detail: the log's own attributes.
    expect(out).toContain("Custom Attributes");
    expect(out).toMatch(/gateway +│ acme-pay/);
    expect(out).toMatch(/cart +│ 42/);
  });

  test("event analytics: accepted and dropped volume per outcome", async () => {
    const out = await cli.ok("event", "analytics", "acme/api");
    expect(out).toMatch(/Accepted: 1 /);
    const spans = await cli.ok("event", "analytics", "acme/api", "--dataset", "spans");
    expect(spans).toMatch(/Accepted: [1-9]/);
  });
});
