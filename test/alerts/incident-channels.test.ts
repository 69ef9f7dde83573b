/**
 * PagerDuty and Opsgenie on the real server (built dist/cli.mjs), SQLite and PostgreSQL: receivers
 * started by the test check every request against the providers' documented schemas (PagerDuty
 * Events API v2 `POST /v2/enqueue`; Opsgenie Alert API `POST /v2/alerts` and
 * `POST /v2/alerts/{alias}/close?identifierType=alias` with `Authorization: GenieKey …`) and answer
 * as the providers do. A new issue triggers / creates with one key per issue; resolving it through
 * Sentry's API resolves / closes the same incident; the delivery log shows all four as sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { dialects } from "../helpers/test-db";
import { type Received, startReceiver } from "./helpers";

const ROUTING_KEY = "R0ut1ngKeyR0ut1ngKeyR0ut1ngKey32";
const GENIE_KEY = "eb243592-faa2-4ba2-a551-1afdf565c889";
type Json = Record<string, unknown>;

const isStr = (v: unknown, max: number) => typeof v === "string" && v.length > 0 && v.length <= max;

/** PagerDuty Events API v2 (developer.pagerduty.com/docs/events-api-v2): the problems of one request. */
function pagerDutyProblems(r: Received): string[] {
  const p: string[] = [];
  if (r.path !== "/v2/enqueue") p.push(`path ${r.path}`);
  if (!String(r.headers["content-type"]).startsWith("application/json")) p.push("content-type");
  let b: Json;
  try {
    b = JSON.parse(r.body) as Json;
  } catch {
    return ["body is not JSON"];
  }
  if (b.routing_key !== ROUTING_KEY) p.push("routing_key");
  if (!["trigger", "acknowledge", "resolve"].includes(String(b.event_action))) p.push("event_action");
  if (b.dedup_key !== undefined && !isStr(b.dedup_key, 255)) p.push("dedup_key");
  if (b.event_action !== "trigger") {
    if (!isStr(b.dedup_key, 255)) p.push("dedup_key required");
    return p;
  }
  const pl = (b.payload ?? {}) as Json;
  if (!isStr(pl.summary, 1024)) p.push("payload.summary");
  if (!isStr(pl.source, 1024)) p.push("payload.source");
  if (!["critical", "error", "warning", "info"].includes(String(pl.severity))) p.push("payload.severity");
  if (pl.timestamp !== undefined && Number.isNaN(Date.parse(String(pl.timestamp)))) p.push("payload.timestamp");
  for (const k of ["component", "group", "class"]) if (pl[k] !== undefined && typeof pl[k] !== "string") p.push(`payload.${k}`);
  if (pl.custom_details !== undefined && (typeof pl.custom_details !== "object" || Array.isArray(pl.custom_details)))
    p.push("custom_details");
  if (b.links !== undefined && !(Array.isArray(b.links) && b.links.every((l: Json) => isStr(l.href, 2000)))) p.push("links");
  const allowed = new Set(["routing_key", "event_action", "dedup_key", "payload", "images", "links", "client", "client_url"]);
  for (const k of Object.keys(b)) if (!allowed.has(k)) p.push(`unknown field ${k}`);
  return p;
}

/** Opsgenie Alert API (docs.opsgenie.com/docs/alert-api): the problems of one request. */
function opsgenieProblems(r: Received): string[] {
  const p: string[] = [];
  if (r.headers.authorization !== `GenieKey ${GENIE_KEY}`) p.push("authorization");
  if (!String(r.headers["content-type"]).startsWith("application/json")) p.push("content-type");
  let b: Json;
  try {
    b = JSON.parse(r.body || "{}") as Json;
  } catch {
    return ["body is not JSON"];
  }
  const close = /^\/v2\/alerts\/([^/?]+)\/close\?identifierType=alias$/.exec(r.path);
  if (close) {
    if (decodeURIComponent(close[1] as string).length > 512) p.push("alias");
    if (b.user !== undefined && !isStr(b.user, 100)) p.push("user");
    if (b.source !== undefined && !isStr(b.source, 100)) p.push("source");
    if (b.note !== undefined && !isStr(b.note, 25_000)) p.push("note");
    return p;
  }
  if (r.path !== "/v2/alerts") return [...p, `path ${r.path}`];
  if (!isStr(b.message, 130)) p.push("message");
  if (b.alias !== undefined && !isStr(b.alias, 512)) p.push("alias");
  if (b.description !== undefined && !isStr(b.description, 15_000)) p.push("description");
  if (b.entity !== undefined && !isStr(b.entity, 512)) p.push("entity");
  if (b.source !== undefined && !isStr(b.source, 100)) p.push("source");
  if (b.priority !== undefined && !["P1", "P2", "P3", "P4", "P5"].includes(String(b.priority))) p.push("priority");
  if (b.tags !== undefined && !(Array.isArray(b.tags) && b.tags.length <= 20 && b.tags.every((t) => isStr(t, 50)))) p.push("tags");
  if (b.details !== undefined) {
    const d = b.details as Json;
    if (typeof d !== "object" || Array.isArray(d) || Object.values(d).some((v) => typeof v !== "string")) p.push("details");
    else if (Object.entries(d).reduce((n, [k, v]) => n + k.length + String(v).length, 0) > 8000) p.push("details over 8000");
  }
  return p;
}

describe.each(await dialects())("incident channels on %s", (dialect) => {
  let server: TestServer;
  let token: string;
  let ingest: string;
  const problems: string[] = [];
  let pd: Awaited<ReturnType<typeof startReceiver>>;
  let og: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    pd = await startReceiver((r) => {
      const p = pagerDutyProblems(r);
      problems.push(...p.map((x) => `pagerduty: ${x}`));
      if (p.length > 0)
        return { status: 400, body: JSON.stringify({ status: "invalid event", message: "Event object is invalid", errors: p }) };
      const dedup = (JSON.parse(r.body) as Json).dedup_key;
      return {
        status: 202,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ status: "success", message: "Event processed", dedup_key: dedup }),
      };
    });
    og = await startReceiver((r) => {
      const p = opsgenieProblems(r);
      problems.push(...p.map((x) => `opsgenie: ${x}`));
      if (p.length > 0) return { status: 422, body: JSON.stringify({ message: p.join(", "), took: 0.01, requestId: "x" }) };
      return {
        status: 202,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ result: "Request will be processed", took: 0.1, requestId: crypto.randomUUID() }),
      };
    });
    server = await startServer({
      dialect,
      env: { ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true", ALERTS_POLL_MS: "100", ALERTS_TIMEOUT_MS: "3000", LOG_LEVEL: "error" },
    });
    await server.cli("user", "create", "--email", "ops@example.com", "--password", "correct horse battery", "--org", "acme");
    const dsn = (await server.cli("project", "create", "--org", "acme", "--name", "api")).split("\n").pop() ?? "";
    const [, key, projectId] = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn) as RegExpExecArray;
    ingest = `${server.url}/api/${projectId}/envelope/?sentry_key=${key}`;
    token = await server.cli(
      "token",
      "create",
      "--email",
      "ops@example.com",
      "--scopes",
      "project:read,project:write,event:read,event:write",
    );
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    await pd?.close();
    await og?.close();
  });

  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  test("trigger → resolve on PagerDuty, create → close on Opsgenie, all in the delivery log", async () => {
    const badKey = await api("POST", "/api/0/projects/acme/api/alert-channels/", {
      kind: "pagerduty",
      name: "PD",
      config: { routingKey: "nope" },
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error).toMatchObject({ code: "validation_failed", fields: [{ field: "config.routingKey" }] });
    const pdc = await api("POST", "/api/0/projects/acme/api/alert-channels/", {
      kind: "pagerduty",
      name: "On-call",
      config: { routingKey: ROUTING_KEY, url: `${pd.url}/v2/enqueue` },
    });
    const ogc = await api("POST", "/api/0/projects/acme/api/alert-channels/", {
      kind: "opsgenie",
      name: "Ops",
      config: { apiKey: GENIE_KEY, url: og.url },
    });
    expect(pdc.status).toBe(201);
    expect(ogc.status).toBe(201);
    // The keys are secrets: never sent back.
    expect(JSON.stringify([pdc.body, ogc.body])).not.toContain(ROUTING_KEY);
    expect(JSON.stringify([pdc.body, ogc.body])).not.toContain(GENIE_KEY);
    expect(pdc.body).toMatchObject({ kind: "pagerduty", hasSecret: true });
    const rule = await api("POST", "/api/0/projects/acme/api/rules/", {
      name: "Page on new issues",
      conditions: [{ id: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition" }],
      actions: [
        { id: "errata.rules.actions.NotifyChannelAction", channelId: pdc.body.id },
        { id: "errata.rules.actions.NotifyChannelAction", channelId: ogc.body.id },
      ],
    });
    expect(rule.status).toBe(201);

    const eventId = crypto.randomUUID().replace(/-/g, "");
    const event = {
      event_id: eventId,
      level: "fatal",
      platform: "node",
      environment: "production",
      exception: { values: [{ type: "OutOfMemory", value: "heap exhausted" }] },
    };
    expect(
      (await fetch(ingest, { method: "POST", body: `{"event_id":"${eventId}"}\n{"type":"event"}\n${JSON.stringify(event)}` })).status,
    ).toBe(200);

    const trigger = await eventually(
      async () => pd.received.find((r) => JSON.parse(r.body).event_action === "trigger"),
      30_000,
      "the PagerDuty trigger",
    );
    const t = JSON.parse(trigger.body) as Json & { payload: Json };
    expect(t).toMatchObject({
      dedup_key: expect.stringMatching(/^errata-issue-\d+$/),
      payload: { severity: "critical", summary: expect.stringContaining("OutOfMemory") },
    });
    const issueId = String(t.dedup_key).replace("errata-issue-", "");
    const created = await eventually(async () => og.received.find((r) => r.path === "/v2/alerts"), 30_000, "the Opsgenie alert");
    expect(JSON.parse(created.body)).toMatchObject({
      alias: `errata-issue-${issueId}`,
      priority: "P1",
      message: expect.stringContaining("OutOfMemory"),
    });

    expect((await api("PUT", `/api/0/organizations/acme/issues/${issueId}/`, { status: "resolved" })).status).toBe(200);
    const resolve = await eventually(
      async () => pd.received.find((r) => JSON.parse(r.body).event_action === "resolve"),
      30_000,
      "the PagerDuty resolve",
    );
    expect(JSON.parse(resolve.body)).toEqual({ routing_key: ROUTING_KEY, event_action: "resolve", dedup_key: `errata-issue-${issueId}` });
    const close = await eventually(async () => og.received.find((r) => r.path.includes("/close")), 30_000, "the Opsgenie close");
    expect(close.path).toBe(`/v2/alerts/errata-issue-${issueId}/close?identifierType=alias`);

    expect(problems).toEqual([]);
    const log = await eventually(
      async () => {
        // The project's default email rule has its own delivery (unsent: no SMTP here); only ours count.
        const all = (await api("GET", "/api/0/projects/acme/api/alert-deliveries/")).body as unknown as Json[];
        const rows = all.filter((d) => d.channelId === pdc.body.id || d.channelId === ogc.body.id);
        return rows.filter((d) => d.status === "sent").length === 4 ? rows : undefined;
      },
      30_000,
      "four sent deliveries",
    );
    expect(log.map((d) => [d.kind, d.channelId, d.responseStatus]).sort()).toEqual(
      [
        ["alert", pdc.body.id, 202],
        ["alert", ogc.body.id, 202],
        ["resolve", pdc.body.id, 202],
        ["resolve", ogc.body.id, 202],
      ].sort(),
    );
    expect(log.find((d) => d.kind === "resolve")?.title).toMatch(/^Resolved: API-\d+ OutOfMemory/);
  });
});
