/**
 * Sentry's official MCP server, unchanged (issue 28): `@sentry/mcp-server` 0.36 (a devDependency)
 * started over stdio as a coding agent starts it (`--host=127.0.0.1:PORT --insecure-http
 * --access-token=…`) and driven through `@modelcontextprotocol/sdk`'s client against the built
 * server, on SQLite and PostgreSQL. Every tool that needs neither an LLM key nor Sentry's docs
 * service is called, with short and numeric issue ids where it takes one, and its answer is checked
 * for the data (titles, frames, tags, DSNs), and its writes through the REST API.
 *
 * Two sessions: the default tool surface, and `--experimental`, whose `execute_tool` reaches the
 * catalog tools the default surface does not list (get_issue_details, get_issue_activity,
 * add_issue_note, get_release_details).
 *
 * Not called, and why:
 *  - search_docs, get_doc: Sentry's documentation service (network);
 *  - use_sentry (only with --agent): an LLM key; search_issues and search_issue_events without a
 *    key take Sentry's query syntax as given, which is what is tested here;
 *  - get_ai_conversation_details, get_snapshot*, get_latest_base_snapshot, get_profile: Errata
 *    serves no AI-conversation, snapshot or profile API.
 * Traces (issue 41): a distributed trace from the real @sentry/node across two projects, read with
 * get_trace_details (through --experimental's execute_tool), get_sentry_resource(trace) and
 * search_events over its metrics; the explore links the tools print open Errata's trace page.
 *  - search_events: needs `/organizations/{org}/events/` (issue-28a), in its own skipped block below.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendReplay } from "../helpers/replay-envelopes.js";
import { sendDistributedTrace } from "../helpers/sdk-trace.js";
import { ATTACHMENT_TEXT, RELEASE, type Seeded, seedAcme, TITLE, USER_EMAIL, USER_NAME } from "../helpers/sentry-clients.js";
import { eventually, ROOT, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

const MCP_BIN = `${ROOT}/node_modules/@sentry/mcp-server/dist/index.js`;

/** Every tool of the default surface; a tool added by a later version fails here until it is looked at. */
const DEFAULT_TOOLS = [
  "analyze_issue_with_seer",
  "create_dsn",
  "create_project",
  "create_team",
  "find_dsns",
  "find_organizations",
  "find_projects",
  "find_releases",
  "find_teams",
  "get_doc",
  "get_event_attachment",
  "get_issue_tag_values",
  "get_profile_details",
  "get_replay_details",
  "get_sentry_resource",
  "search_docs",
  "search_events",
  "search_issue_events",
  "search_issues",
  "update_issue",
  "update_project",
  "whoami",
];

interface ToolAnswer {
  text: string;
  isError: boolean;
  content: Array<{ type: string; text?: string; resource?: { blob?: string } }>;
}

async function connect(server: TestServer, token: string, extra: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_BIN, `--host=${new URL(server.url).host}`, "--insecure-http", `--access-token=${token}`, ...extra],
    // No SENTRY_DSN: the MCP server's own telemetry stays off; no LLM keys.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
    stderr: "ignore",
  });
  const client = new Client({ name: "errata-compat-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as ToolAnswer["content"];
  return { text: content.map((c) => c.text ?? "").join("\n"), isError: r.isError === true, content };
}

/** A tool that must succeed: its text, or a failure that shows what the server said. */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await call(client, name, args);
  expect(r.isError, `${name} ${JSON.stringify(args)} answered an error:\n${r.text}`).toBe(false);
  return r.text;
}

describe.each(await dialects())("Sentry's MCP server against Errata on %s", (dialect) => {
  let server: TestServer;
  let s: Seeded;
  let mcp: Client;
  let experimental: Client;
  let replayId: string;
  const exec = (name: string, args: Record<string, unknown>) => ok(experimental, "execute_tool", { name, arguments: args });

  beforeAll(async () => {
    server = await startServer({ dialect });
    s = await seedAcme(server);
    // A session replay that saw the seeded error (issue 40), digested before the tools ask.
    replayId = await sendReplay(s.dsn, { errorIds: [s.eventId], user: { id: "u1", email: "shopper@example.com" } });
    await eventually(
      async () => (await s.api("GET", `/api/0/organizations/acme/replays/${replayId}/`)).body?.data?.count_segments === 2,
      30_000,
      "the replay",
    );
    [mcp, experimental] = await Promise.all([connect(server, s.token), connect(server, s.token, ["--experimental"])]);
  }, 300_000);
  afterAll(async () => {
    await mcp?.close();
    await experimental?.close();
    await server?.stop();
  });

  test("lists its default tools, and the catalog through --experimental", async () => {
    expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(DEFAULT_TOOLS);
    const found = JSON.parse(await ok(experimental, "search_tools", { query: "issue activity note" })) as {
      results: Array<{ name: string }>;
    };
    expect(found.results.map((r) => r.name)).toEqual(expect.arrayContaining(["add_issue_note", "get_issue_activity"]));
  });

  test("whoami and find_organizations: the token's user, and a self-hosted org with no region to follow", async () => {
    const me = await ok(mcp, "whoami");
    expect(me).toContain(`You are authenticated as ${USER_NAME} (${USER_EMAIL})`);
    expect(me).toContain(s.userId);
    const orgs = await ok(mcp, "find_organizations");
    expect(orgs).toContain("## **acme**");
    expect(orgs).toContain(`**Web URL:** ${server.url}`);
    // An http PUBLIC_URL gives no regionUrl: the MCP server refuses any http one.
    expect(orgs).toContain("self-hosted Sentry installation");
  });

  test("teams, projects and DSNs: created through the tools, read back through them and the API", async () => {
    expect(await ok(mcp, "create_team", { organizationSlug: "acme", name: "platform" })).toContain("**Slug**: platform");
    expect(await ok(mcp, "find_teams", { organizationSlug: "acme" })).toMatch(/- platform \(ID: \d+\)/);

    const created = await ok(mcp, "create_project", { organizationSlug: "acme", teamSlug: "platform", name: "payments", platform: "node" });
    const dsn = /\*\*SENTRY_DSN\*\*: (\S+)/.exec(created)?.[1] as string;
    expect(new URL(dsn).host).toBe(new URL(server.url).host);
    const project = (await s.api("GET", "/api/0/projects/acme/payments/")).body;
    expect(project).toMatchObject({ slug: "payments", platform: "node", teams: [expect.objectContaining({ slug: "platform" })] });
    expect(await ok(mcp, "find_projects", { organizationSlug: "acme" })).toMatch(/- \*\*payments\*\*[\s\S]*- \*\*web\*\*/);

    const updated = await ok(mcp, "update_project", {
      organizationSlug: "acme",
      projectSlug: "payments",
      name: "Payments API",
      platform: "python",
      teamSlug: "platform",
    });
    expect(updated).toContain("**Name**: Payments API");
    expect((await s.api("GET", "/api/0/projects/acme/payments/")).body).toMatchObject({ name: "Payments API", platform: "python" });

    const key = await ok(mcp, "create_dsn", { organizationSlug: "acme", projectSlug: "payments", name: "ci runner" });
    const ciDsn = /\*\*DSN\*\*: (\S+)/.exec(key)?.[1] as string;
    const keys = await ok(mcp, "find_dsns", { organizationSlug: "acme", projectSlug: "payments" });
    expect(keys).toContain("## ci runner");
    expect(keys).toContain(ciDsn);
    expect(keys).toContain(dsn);
  });

  test("releases: listed for the org and the project, and in detail", async () => {
    for (const args of [{ organizationSlug: "acme" }, { organizationSlug: "acme", projectSlug: "web" }]) {
      const text = await ok(mcp, "find_releases", args);
      expect(text).toContain(`## ${RELEASE}`);
      expect(text).toContain("**New Issues**: 1");
    }
    const detail = await exec("get_release_details", { organizationSlug: "acme", releaseVersion: RELEASE });
    expect(detail).toContain(`# Release ${RELEASE} in **acme**`);
    expect(detail).toContain("**Projects**: web");
  });

  test("an issue by short id, numeric id, event id and URL: title, frame with its source, tags and user", async () => {
    const expectIssue = (text: string) => {
      expect(text).toContain(`# Issue ${s.shortId} in **acme**`);
      expect(text).toContain(`**Description**: ${TITLE}`);
      expect(text).toContain(`**Event ID**: ${s.eventId}`);
      // camelCase frames with context pairs: the line, its column, and the code around it.
      expect(text).toContain("app/cart.js:12:17 (checkout)");
      expect(text).toMatch(/→ 12 │ +return cart\.total;/);
      expect(text).toContain("**environment**: production");
      expect(text).toContain(`**release**: ${RELEASE}`);
      expect(text).toContain("**region**: eu-west");
      expect(text).toContain("shopper@example.com");
    };
    for (const resourceId of [s.shortId, s.shortId.toLowerCase(), s.issueId]) {
      expectIssue(await ok(mcp, "get_sentry_resource", { resourceType: "issue", organizationSlug: "acme", resourceId }));
    }
    // The link it prints is Sentry's URL scheme: Errata sends it on to its own page for the issue.
    const link = /\*\*URL\*\*: (\S+)/.exec(
      await ok(mcp, "get_sentry_resource", { resourceType: "issue", organizationSlug: "acme", resourceId: s.issueId }),
    )?.[1] as string;
    expect(link).toBe(`${server.url}/organizations/acme/issues/${s.shortId}`);
    const hop = await fetch(link, { redirect: "manual" });
    expect(new URL(hop.headers.get("location") ?? "", server.url).pathname).toBe(`/acme/issues/${s.shortId}`);
    expectIssue(await ok(mcp, "get_sentry_resource", { resourceType: "event", organizationSlug: "acme", resourceId: s.eventId }));
    expectIssue(await ok(mcp, "get_sentry_resource", { url: `${server.url}/organizations/acme/issues/${s.shortId}/` }));
    for (const issueId of [s.shortId, s.issueId]) expectIssue(await exec("get_issue_details", { organizationSlug: "acme", issueId }));
    expectIssue(await exec("get_issue_details", { organizationSlug: "acme", eventId: s.eventId }));

    const crumbs = await ok(mcp, "get_sentry_resource", { resourceType: "breadcrumbs", organizationSlug: "acme", resourceId: s.shortId });
    // ISO breadcrumb times: a 1970 date would mean epoch seconds read as an ISO string.
    expect(crumbs).toMatch(new RegExp(`${new Date().getUTCFullYear()}-\\d\\d-\\d\\dT[\\d:.]+Z info +\\[navigation\\] to /cart`));
  });

  test("search_issues with Sentry's query syntax, across the org and per project (slug or id)", async () => {
    for (const args of [
      { organizationSlug: "acme", query: "is:unresolved" },
      { organizationSlug: "acme", query: "TypeError", projectSlugOrId: "web" },
      { organizationSlug: "acme", query: "level:error", projectSlugOrId: s.projectId },
    ]) {
      const text = await ok(mcp, "search_issues", args);
      expect(text, JSON.stringify(args)).toContain(`[${s.shortId}](`);
      expect(text).toContain(`**${TITLE}**`);
    }
    expect(await ok(mcp, "search_issues", { organizationSlug: "acme", query: "is:resolved" })).not.toContain(s.shortId);
  });

  test("an issue's events and tag values, by short and numeric id", async () => {
    for (const issueId of [s.shortId, s.issueId]) {
      const events = await ok(mcp, "search_issue_events", { organizationSlug: "acme", issueId });
      expect(events).toContain(`**eventID**: ${s.eventId}`);
      expect(events).toContain(`**title**: ${TITLE}`);
      const env = await ok(mcp, "get_issue_tag_values", { organizationSlug: "acme", issueId, tagKey: "environment" });
      expect(env).toMatch(/\| `production` \| 1 \|/);
      const region = await ok(mcp, "get_issue_tag_values", { organizationSlug: "acme", issueId, tagKey: "region" });
      expect(region).toMatch(/\| `eu-west` \| 1 \|/);
    }
  });

  test("an event's attachment: listed, then downloaded with its content", async () => {
    const list = await ok(mcp, "get_event_attachment", { organizationSlug: "acme", projectSlug: "web", eventId: s.eventId });
    expect(list).toContain("**Name:** cart.txt");
    const attachmentId = /\*\*ID:\*\* (\S+)/.exec(list)?.[1] as string;
    const got = await ok(mcp, "get_event_attachment", { organizationSlug: "acme", projectSlug: "web", eventId: s.eventId, attachmentId });
    expect(got).toContain("**MIME Type:** text/plain");
    expect(got).toContain(ATTACHMENT_TEXT);
  });

  test("update_issue by short and numeric id: status, ignore rules, assignees and the reason as a note", async () => {
    const status = async () => (await s.api("GET", `/api/0/organizations/acme/issues/${s.issueId}/`)).body;
    expect(await ok(mcp, "update_issue", { organizationSlug: "acme", issueId: s.shortId, status: "resolved" })).toContain(
      "**Status**: unresolved → **resolved**",
    );
    expect((await status()).status).toBe("resolved");
    await ok(mcp, "update_issue", { organizationSlug: "acme", issueId: s.issueId, status: "unresolved" });
    expect((await status()).status).toBe("unresolved");

    const snoozed = await ok(mcp, "update_issue", {
      organizationSlug: "acme",
      issueId: s.shortId,
      status: "ignored",
      ignoreMode: "forDuration",
      ignoreDurationMinutes: 30,
    });
    expect(snoozed).toContain("**Status**: unresolved → **ignored**");
    const ignored = await status();
    expect(ignored.status).toBe("ignored");
    expect(Date.parse(ignored.statusDetails.ignoreUntil) - Date.now()).toBeGreaterThan(25 * 60_000);
    await ok(mcp, "update_issue", { organizationSlug: "acme", issueId: s.shortId, status: "unresolved" });

    // Assignees as its documentation writes them: user:ID (from whoami), team:slug, and `me`.
    await ok(mcp, "update_issue", { organizationSlug: "acme", issueId: s.shortId, assignedTo: `user:${s.userId}`, reason: "mine now" });
    expect((await status()).assignedTo).toMatchObject({ type: "user", id: s.userId });
    if (!(await s.api("GET", "/api/0/teams/acme/platform/")).body?.slug)
      await ok(mcp, "create_team", { organizationSlug: "acme", name: "platform" });
    await ok(mcp, "update_issue", { organizationSlug: "acme", issueId: s.issueId, assignedTo: "team:platform" });
    expect((await status()).assignedTo).toMatchObject({ type: "team", name: "platform" });
    await ok(mcp, "update_issue", { organizationSlug: "acme", issueId: s.shortId, assignedTo: "me" });
    expect((await status()).assignedTo).toMatchObject({ type: "user", id: s.userId });
    const notes = (await s.api("GET", `/api/0/organizations/acme/issues/${s.issueId}/comments/`)).body as Array<{ data: { text: string } }>;
    expect(notes.map((n) => n.data.text)).toContain("mine now");
  });

  test("add_issue_note and get_issue_activity, by short and numeric id", async () => {
    for (const issueId of [s.shortId, s.issueId]) {
      const text = `looked at it via ${issueId}`;
      await exec("add_issue_note", { organizationSlug: "acme", issueId, text });
      const activity = await exec("get_issue_activity", { organizationSlug: "acme", issueId, includeComments: true });
      expect(activity).toContain(text);
    }
    const notes = (await s.api("GET", `/api/0/organizations/acme/issues/${s.issueId}/notes/`)).body as Array<{ data: { text: string } }>;
    expect(notes.map((n) => n.data.text)).toEqual(
      expect.arrayContaining([`looked at it via ${s.shortId}`, `looked at it via ${s.issueId}`]),
    );
  });

  test("replays: get_replay_details by id and by its URL, an issue's related replays, search_events over replays", async () => {
    const detail = await ok(mcp, "get_replay_details", { organizationSlug: "acme", replayId });
    expect(detail).toContain(`# Replay ${replayId} in **acme**`);
    for (const line of ["**Errors**: 1", "**Rage Clicks**: 1", "**Dead Clicks**: 1", "**Recording Segments**: 2", "**Browser**: Chrome"])
      expect(detail).toContain(line);
    expect(detail).toContain("**User**: shopper@example.com");
    expect(detail).toContain("**URLs**: https://shop.example/checkout");
    // The activity comes from the downloaded segments; the related issue from the replay's error ids.
    expect(detail).toMatch(/ui\.slowClickDetected|ui\.click/);
    expect(detail).toContain(`**${s.shortId}**`);
    const url = /\*\*Replay URL\*\*: (\S+)/.exec(detail)?.[1] as string;
    expect(await ok(mcp, "get_replay_details", { replayUrl: url })).toContain(`# Replay ${replayId} in **acme**`);
    // The link it prints opens Errata's replay page.
    const hop = await fetch(url, { redirect: "manual" });
    expect(new URL(hop.headers.get("location") ?? "", server.url).pathname.replace(/\/$/, "")).toBe(`/acme/replays/${replayId}`);
    const issue = await exec("get_issue_details", { organizationSlug: "acme", issueId: s.shortId });
    expect(issue).toContain("## Session Replay");
    expect(issue).toContain("**Related Replay Count**: 1");
    expect(issue).toContain(replayId);
    const found = await ok(mcp, "search_events", {
      organizationSlug: "acme",
      dataset: "replays",
      query: "count_rage_clicks:>0",
      sort: "-count_errors",
      statsPeriod: "24h",
    });
    expect(found).toContain("Found **1** replay");
    expect(found).toContain(replayId);
  });

  test("Seer and profiles: a sentence saying they are not available, not a crash", async () => {
    for (const [name, args] of [
      ["analyze_issue_with_seer", { organizationSlug: "acme", issueId: s.shortId }],
      ["get_profile_details", { organizationSlug: "acme", projectSlugOrId: "web", profileId: "7e07485f12f9416b8b1426260799b51f" }],
    ] as const) {
      const r = await call(mcp, name, args);
      expect(r.isError, name).toBe(true);
      expect(r.text, name).toMatch(/not available on this Errata installation/);
    }
  });
});

// The query API and project DELETE (issue 28).
describe.each(await dialects())("Sentry's MCP server: event queries on %s", (dialect) => {
  let server: TestServer;
  let s: Seeded;
  let mcp: Client;

  beforeAll(async () => {
    server = await startServer({ dialect });
    s = await seedAcme(server);
    mcp = await connect(server, s.token);
  }, 300_000);
  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
  });

  test("search_events over errors: rows with the event, and a count", async () => {
    const rows = await ok(mcp, "search_events", { organizationSlug: "acme", dataset: "errors", query: "level:error", statsPeriod: "24h" });
    expect(rows).toContain(TITLE);
    const counted = await ok(mcp, "search_events", {
      organizationSlug: "acme",
      dataset: "errors",
      fields: ["issue", "count()"],
      sort: "-count()",
      query: "",
      statsPeriod: "24h",
    });
    expect(counted).toContain(s.shortId);
  });
});

// Traces across projects, their logs and metrics (issue 41).
describe.each(await dialects())("Sentry's MCP server: traces on %s", (dialect) => {
  let server: TestServer;
  let s: Seeded;
  let mcp: Client;
  let experimental: Client;
  let traceId: string;

  beforeAll(async () => {
    server = await startServer({ dialect });
    s = await seedAcme(server);
    const apiDsn = await server.cli("project", "create", "--org", "acme", "--name", "api", "--platform", "node");
    ({ traceId } = await sendDistributedTrace(
      s.dsn,
      apiDsn,
      async (id) => (await s.api("GET", `/api/0/organizations/acme/trace-meta/${id}/`)).body,
    ));
    [mcp, experimental] = await Promise.all([connect(server, s.token), connect(server, s.token, ["--experimental"])]);
  }, 300_000);
  afterAll(async () => {
    await mcp?.close();
    await experimental?.close();
    await server?.stop();
  });

  test("get_trace_details: the trace's counts, its spans across both services and its link", async () => {
    const text = await ok(experimental, "execute_tool", { name: "get_trace_details", arguments: { organizationSlug: "acme", traceId } });
    expect(text).toContain(traceId);
    expect(text).toMatch(/Total Spans\*\*: 4/);
    expect(text).toMatch(/Errors\*\*: 1/);
    expect(text).toMatch(/Logs\*\*: 3/);
    expect(text).toContain("GET /checkout");
    expect(text).toContain("POST /api/pay");
    // The link it prints opens Errata's trace page.
    const link = /https?:\/\/\S+\/explore\/traces\/trace\/[0-9a-f]{32}\/?/.exec(text)?.[0] as string;
    expect(link).toBeDefined();
    const res = await fetch(link, { redirect: "manual" });
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(400);
    expect(new URL(res.headers.get("location") as string, server.url).pathname).toBe(`/acme/explore/traces/trace/${traceId}`);
    const page = await fetch(new URL(`/acme/explore/traces/trace/${traceId}`, server.url), { redirect: "manual" });
    // Signed out, the explore resolver sends the browser to sign in and back here.
    expect(page.headers.get("location") ?? "").toContain("/login");
  });

  test("get_sentry_resource(trace): the same trace by id", async () => {
    const text = await ok(mcp, "get_sentry_resource", { organizationSlug: "acme", resourceType: "trace", resourceId: traceId });
    expect(text).toContain(traceId);
    expect(text).toContain("POST /api/pay");
  });

  test("search_events over Sentry.metrics: the samples and an aggregate", async () => {
    const rows = await ok(mcp, "search_events", {
      organizationSlug: "acme",
      dataset: "metrics",
      query: "metric.name:payment.latency",
      fields: ["timestamp", "project", "metric.name", "metric.type", "metric.unit", "value", "trace"],
      sort: "-timestamp",
      statsPeriod: "24h",
    });
    expect(rows).toContain("payment.latency");
    expect(rows).toContain(traceId);
    const sum = await ok(mcp, "search_events", {
      organizationSlug: "acme",
      dataset: "metrics",
      query: "",
      fields: ["sum(value,checkout.attempts,counter,-)"],
      sort: "-sum(value,checkout.attempts,counter,-)",
      statsPeriod: "24h",
    });
    expect(sum).toMatch(/\b1\b/);
  });
});
