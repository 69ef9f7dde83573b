/**
 * Alerts on the real server (built dist/cli.mjs): the CLI provisions a webhook rule, a real
 * @sentry/node-style envelope arrives, the worker delivers; the Sentry-compatible REST for rules,
 * "send a test" showing the remote's answer, /metrics per channel — and kill -9 during delivery:
 * after a restart every pending notification reaches the receiver exactly once (counted by
 * delivery id; a resend of the message in flight at the kill is recognisable by its id).
 */
import { afterAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-db";
import { startReceiver } from "./helpers";

// Message grouping parameterizes numbers: one word per issue.
const NAMES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"];

const ENV = {
  ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true",
  ALERTS_POLL_MS: "100",
  ALERTS_LEASE_MS: "3000",
  ALERTS_TIMEOUT_MS: "2000",
  LOG_LEVEL: "error",
};

function envelope(message: string): string {
  const id = crypto.randomUUID().replace(/-/g, "");
  const event = { event_id: id, message, level: "error", platform: "node", environment: "production" };
  return `{"event_id":"${id}"}\n{"type":"event"}\n${JSON.stringify(event)}`;
}

describe("alerts on the real server (SQLite)", () => {
  let info: TestDatabase | undefined;
  let server: TestServer | undefined;
  let slow: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterAll(async () => {
    await server?.stop();
    await slow?.close();
    await info?.drop();
  });

  test("CLI rule → event → webhook; REST rules; send a test; /metrics; kill -9 mid-delivery loses and duplicates nothing", async () => {
    // The receiver answers slowly so that the kill lands while a message is in flight.
    let hold = true;
    slow = await startReceiver();
    const rx = slow;
    info = await createTestDatabase("sqlite");
    server = await startServer({ db: info, env: ENV });
    const s = server;
    await s.cli("user", "create", "--email", "ops@example.com", "--password", "durable-password-1", "--org", "ops");
    const dsn = (await s.cli("project", "create", "--org", "ops", "--name", "Api")).split("\n").pop() ?? "";
    const [, key, projectId] = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn) as RegExpExecArray;
    const ingest = `${s.url}/api/${projectId}/envelope/?sentry_key=${key}`;

    // CLI: create, list
    const ruleId = await s.cli(
      "alert",
      "create",
      "--org",
      "ops",
      "--project",
      "api",
      "--trigger",
      "new-issue",
      "--webhook",
      `${rx.url}/hook`,
      "--kind",
      "generic",
      "--filter",
      "environment:production",
    );
    expect(ruleId).toMatch(/^\d+$/);
    const listed = await s.cli("alert", "list", "--org", "ops", "--project", "api");
    expect(listed).toContain(`${ruleId}\ton\tnew-issue\twebhook\tenvironment:production`);

    // REST (Sentry's shape) with a token
    const token = await s.cli("token", "create", "--email", "ops@example.com", "--scopes", "project:read,project:write");
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const rules = await (await fetch(`${s.url}/api/0/projects/ops/api/rules/`, { headers: auth })).json();
    expect(rules.find((r: { id: string }) => r.id === ruleId)).toMatchObject({
      conditions: [{ id: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition" }],
      status: "active",
    });
    const bad = await fetch(`${s.url}/api/0/projects/ops/api/rules/`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "x", conditions: [{ id: "sentry.rules.conditions.nope" }], actions: [] }),
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ code: "validation_failed", fields: [{ field: "conditions.0.id" }] });
    const ch = await (
      await fetch(`${s.url}/api/0/projects/ops/api/alert-channels/`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ kind: "slack", name: "slack", config: { url: `${rx.url}/slack` } }),
      })
    ).json();
    const created = await fetch(`${s.url}/api/0/projects/ops/api/rules/`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        name: "Regressions to Slack",
        frequency: 10,
        conditions: [{ id: "sentry.rules.conditions.regression_event.RegressionEventCondition" }],
        filters: [{ id: "sentry.rules.filters.level.LevelFilter", match: "eq", level: "40" }],
        actions: [{ id: "errata.rules.actions.NotifyChannelAction", channelId: ch.id }],
      }),
    });
    expect(created.status).toBe(201);
    const c = await created.json();
    expect(c).toMatchObject({ name: "Regressions to Slack", frequency: 10, filters: [{ level: "40" }] });
    expect((await fetch(`${s.url}/api/0/projects/ops/api/rules/${c.id}/`, { method: "DELETE", headers: auth })).status).toBe(202);

    // send a test: the remote's answer comes back
    const test = await (
      await fetch(`${s.url}/api/0/projects/ops/api/alert-channels/${ch.id}/test/`, { method: "POST", headers: auth })
    ).json();
    expect(test).toMatchObject({ status: "sent", responseStatus: 200, responseBody: "ok", kind: "test" });
    expect(JSON.parse(rx.received.find((r) => r.path === "/slack")?.body ?? "{}").text).toContain("Test message from Errata");

    // a real event → the webhook
    expect((await fetch(ingest, { method: "POST", body: envelope("first alert") })).status).toBe(200);
    const first = await eventually(async () => rx.received.find((r) => r.path === "/hook"), 20_000, "the first webhook");
    expect(JSON.parse(first.body).message.issue.title).toBe("first alert");
    const metrics = await eventually(
      async () => {
        const m = await (await fetch(`${s.url}/metrics`)).text();
        return /errata_notifications_total\{channel="webhook",result="sent"\} 1/.test(m) ? m : undefined;
      },
      20_000,
      "the webhook on /metrics",
    );
    expect(metrics).toMatch(/errata_notifications_total\{channel="slack",result="sent"\} 1/);

    // kill -9 while deliveries are in flight
    const before = rx.received.length;
    const N = 12;
    let inFlight = 0;
    // This receiver takes 400 ms per answer until the restart.
    const holdMs = 400;
    const delayed = await startSlowReceiver(
      holdMs,
      () => hold,
      (n) => {
        inFlight = n;
      },
    );
    await s.cli(
      "alert",
      "create",
      "--org",
      "ops",
      "--project",
      "api",
      "--trigger",
      "new-issue",
      "--webhook",
      `${delayed.url}/slow`,
      "--name",
      "slow",
    );
    for (let i = 0; i < N; i++) expect((await fetch(ingest, { method: "POST", body: envelope(`crash ${NAMES[i]}`) })).status).toBe(200);
    await eventually(async () => delayed.received.length >= 3 && inFlight > 0, 30_000, "deliveries in flight");
    await s.kill();
    const atKill = delayed.received.length;
    hold = false;
    server = await startServer({ db: info, env: ENV });
    await eventually(
      async () => new Set(delayed.received.map((r) => r.headers["x-errata-delivery"])).size >= N,
      60_000,
      `${N} distinct deliveries`,
    );
    const ids = delayed.received.map((r) => String(r.headers["x-errata-delivery"]));
    const distinct = new Set(ids);
    expect(distinct.size).toBe(N);
    const titles = new Set(delayed.received.map((r) => JSON.parse(r.body).message.issue.title));
    expect(titles).toEqual(new Set(Array.from({ length: N }, (_, i) => `crash ${NAMES[i]}`)));
    // at most the one message in flight at the kill arrives twice, with the same delivery id
    const duplicates = ids.length - distinct.size;
    expect(duplicates).toBeLessThanOrEqual(1);
    console.info(`kill -9: ${atKill} requests before the kill, ${ids.length} in all, ${distinct.size} distinct, ${duplicates} resent`);
    expect(before).toBeGreaterThan(0);
    await delayed.close();
  }, 240_000);
});

/** A receiver that holds each answer `holdMs` while `holding()` says so, reporting requests in flight. */
async function startSlowReceiver(holdMs: number, holding: () => boolean, onFlight: (n: number) => void) {
  const http = await import("node:http");
  const received: Array<{ path: string; headers: Record<string, unknown>; body: string }> = [];
  let flight = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      flight += 1;
      onFlight(flight);
      setTimeout(
        () => {
          flight -= 1;
          onFlight(flight);
          res.writeHead(200).end("ok");
        },
        holding() ? holdMs : 0,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
