/**
 * The ingest endpoints besides plain events, over real HTTP on both databases: CSP reports, item
 * types cut out at ingest, per-key / per-project rate limits and installation backpressure (429 +
 * Retry-After + X-Sentry-Rate-Limits, exposed by CORS), the crash-report dialog and its form, and
 * the outcomes ingest records itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseEnvelope } from "../../src/ingest/parse-envelope";
import { registry } from "../../src/metrics";
import type { Db } from "../../src/storage/db";
import { queueDepth, queueStore } from "../../src/storage/queue/queue";
import { dialects, openTestDb } from "../helpers/test-db";
import { eventEnvelope, type HandlerServer, outcomeCounts, request, type SeededProject, seedProject, startHandler, until } from "./helpers";

const LIMITS = { maxHeaderLine: 8192, maxEventSize: 1 << 20, maxAttachmentSize: 1 << 20 };
let idSeq = 0;
const newId = () => (++idSeq).toString(16).padStart(8, "0") + "e".repeat(24);

async function queuedBodies(db: Db, projectId: number): Promise<Buffer[]> {
  const rows = await queueStore(db)
    .kysely.selectFrom("queue")
    .innerJoin("queue_bodies as b", "b.id", "queue.id")
    .select("b.body")
    .where("project_id", "=", projectId)
    .orderBy("queue.id")
    .execute();
  return rows.map((r) => Buffer.from(r.body));
}

function expectRateLimited(r: { status: number; headers: Record<string, unknown>; json: Record<string, unknown> }, header: RegExp): void {
  expect(r.status).toBe(429);
  expect(r.json.code).toBe("rate_limited");
  expect(String(r.headers["retry-after"])).toMatch(/^\d+$/);
  expect(String(r.headers["x-sentry-rate-limits"])).toMatch(header);
  expect(r.headers["access-control-allow-origin"]).toBe("*");
  expect(String(r.headers["access-control-expose-headers"])).toContain("x-sentry-rate-limits");
  expect(String(r.headers["access-control-expose-headers"])).toContain("retry-after");
}

describe.each(await dialects())("ingest endpoints on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: HandlerServer;
  let p: SeededProject;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    s = await startHandler(db, { OUTCOME_FLUSH_MS: "50" });
  });
  afterAll(async () => {
    await s.close();
    await close();
  });

  test("CSP reports: report-uri and Reporting API bodies, one queued raw_security item per violation", async () => {
    p = await seedProject(db, "csp");
    const reportUri = JSON.stringify({
      "csp-report": {
        "document-uri": "https://shop.example/",
        "effective-directive": "script-src-elem",
        "blocked-uri": "https://evil.example/x.js",
      },
    });
    const r = await request(
      s.base,
      `/api/${p.projectId}/security/?sentry_key=${p.key}&sentry_release=shop%401.2&sentry_environment=prod`,
      reportUri,
      {
        headers: { "content-type": "application/csp-report" },
      },
    );
    expect(r.status).toBe(201);
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    const reportingApi = JSON.stringify([
      {
        type: "csp-violation",
        url: "https://shop.example/a",
        body: { documentURL: "https://shop.example/a", blockedURL: "inline", effectiveDirective: "style-src" },
      },
      {
        type: "csp-violation",
        url: "https://shop.example/b",
        body: { documentURL: "https://shop.example/b", blockedURL: "eval", effectiveDirective: "script-src" },
      },
      { type: "deprecation", url: "https://shop.example/", body: {} },
    ]);
    const r2 = await request(s.base, `/api/${p.projectId}/csp-report?sentry_key=${p.key}`, reportingApi, {
      headers: { "content-type": "application/reports+json" },
    });
    expect(r2.status).toBe(201);
    const bodies = await queuedBodies(db, p.projectId);
    expect(bodies).toHaveLength(3);
    const first = parseEnvelope(bodies[0] as Buffer, LIMITS);
    expect(first.headers.event_id).toMatch(/^[0-9a-f]{32}$/);
    expect(first.items.map((i) => i.headers)).toEqual([{ type: "raw_security", sentry_release: "shop@1.2", sentry_environment: "prod" }]);
    expect(JSON.parse(Buffer.from(first.items[0]?.payload ?? []).toString())).toMatchObject({ "blocked-uri": "https://evil.example/x.js" });
    // Browsers cannot send headers: no key in the URI → 401; not JSON → 400.
    expect((await request(s.base, `/api/${p.projectId}/security/`, reportUri)).json.code).toBe("missing_auth");
    expect((await request(s.base, `/api/${p.projectId}/security/?sentry_key=${p.key}`, "<html>")).json.code).toBe("invalid_json");
    expect((await request(s.base, `/api/${p.projectId}/security/?sentry_key=${p.key}`, undefined, { method: "GET" })).status).toBe(405);
    await until(async () => Object.keys(await outcomeCounts(db, p.projectId)).length === 2, "refusals counted");
    expect(await outcomeCounts(db, p.projectId)).toEqual({ "security filtered unsupported_item": 1, "default invalid invalid_json": 1 });
  });

  test("types Errata does not store are cut out at ingest: 200, counted filtered(unsupported_item), never queued", async () => {
    p = await seedProject(db, "cut");
    const url = `/api/${p.projectId}/envelope/?sentry_key=${p.key}`;
    const before = await queueDepth(db);
    const txId = newId();
    const onlyTracing = `{"event_id":"${txId}"}\n{"type":"profile"}\n{}\n{"type":"profile_chunk"}\n{}\n{"type":"replay_video","length":3}\nabc`;
    const r = await request(s.base, url, onlyTracing);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: txId });
    // Profiles are never kept: the SDK is told to stop sending them for an hour. Mobile replay video
    // is not kept either, but its category is the browser replays' too: counted, never limited.
    expect(r.headers["x-sentry-rate-limits"]).toBe("3600:profile;profile_chunk:organization:not_kept");
    expect(await queueDepth(db)).toBe(before);
    const id = newId();
    const mixed = `{"event_id":"${id}"}\n{"type":"statsd"}\n{}\n{"type":"event"}\n{"message":"kept"}\n{"type":"something_new"}\n{}\n{"type":"attachment","length":5}\na\nb\nc`;
    const mixedReply = await request(s.base, url, mixed);
    expect(mixedReply.json).toEqual({ id });
    expect(mixedReply.headers["x-sentry-rate-limits"]).toBeUndefined();
    const [queued] = await queuedBodies(db, p.projectId);
    const env = parseEnvelope(queued as Buffer, LIMITS);
    expect(env.headers.event_id).toBe(id);
    expect(env.items.map((i) => i.headers.type)).toEqual(["event", "attachment"]);
    expect(Buffer.from(env.items[1]?.payload ?? []).toString()).toBe("a\nb\nc");
    await until(async () => Object.keys(await outcomeCounts(db, p.projectId)).length === 4, "unsupported items counted");
    expect(await outcomeCounts(db, p.projectId)).toEqual({
      "profile filtered unsupported_item": 2,
      "replay filtered unsupported_item": 1,
      "metric_bucket filtered unsupported_item": 1,
      "default filtered unsupported_item": 1,
    });
  });

  test("refusals of an authenticated key are counted (invalid, filtered); unauthenticated ones are not attributable", async () => {
    p = await seedProject(db, "refusals");
    const url = `/api/${p.projectId}/envelope/?sentry_key=${p.key}`;
    expect((await request(s.base, url, "garbage")).json.code).toBe("invalid_envelope");
    expect((await request(s.base, url, `{}\n{"type":"event"}\n{"message":`)).json.code).toBe("invalid_json");
    expect((await request(s.base, `/api/${p.projectId}/envelope/?sentry_key=${p.disabledKey}`, eventEnvelope(newId()))).status).toBe(403);
    expect((await request(s.base, `/api/${p.projectId}/envelope/?sentry_key=${"f".repeat(32)}`, eventEnvelope(newId()))).status).toBe(403);
    await until(async () => Object.keys(await outcomeCounts(db, p.projectId)).length === 3, "refusals counted");
    expect(await outcomeCounts(db, p.projectId)).toEqual({
      "default invalid invalid_envelope": 1,
      "default invalid invalid_json": 1,
      "default filtered project_disabled": 1,
    });
    // The same counts on /metrics (this process serves them). The counter moves when the commit's
    // answer reaches the main thread, a moment after the rows are visible to other connections.
    // (Project ids repeat across the two dialects' databases; the process-wide counter adds up.)
    const line = new RegExp(
      `errata_outcomes_total\\{project="${p.projectId}",category="default",outcome="invalid",reason="invalid_envelope"\\} [1-9]`,
    );
    await until(async () => line.test(await registry.getSingleMetricAsString("errata_outcomes_total")), "refusals on /metrics");
  });

  test("crash-report dialog: the script, the page, and the form stored as user feedback", async () => {
    p = await seedProject(db, "dialog");
    const eventId = newId();
    const dsn = `http://${p.key}@errata.test/${p.projectId}`;
    // What getReportDialogEndpoint builds: the dsn unencoded, options encoded.
    const url = `/api/embed/error-page/?dsn=${dsn}&eventId=${eventId}&name=${encodeURIComponent("<b>Ada</b>")}&title=${encodeURIComponent("</script><script>alert(1)</script>")}`;
    const js = await request(s.base, url);
    expect(js.status).toBe(200);
    expect(js.headers["content-type"]).toBe("application/javascript; charset=utf-8");
    expect(js.headers["access-control-allow-origin"]).toBe("*");
    expect(js.text).toContain("__sentry_reportdialog_closed__");
    expect(js.text).not.toContain("</script");
    expect(js.text).not.toContain("<b>");
    const page = await request(s.base, url, undefined, { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.text).toContain("&#60;b&#62;Ada&#60;/b&#62;");
    expect(page.text).not.toMatch(/<script/i);

    const bad = await request(s.base, url, "name=Ada&email=nope&comments=", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: "validation_failed", errors: { email: "not an email address", comments: "required" } });
    const ok = await request(s.base, url, "name=Ada&email=ada%40example.com&comments=Clicked%20save", {
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://shop.example" },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe("*");
    const form = await request(s.base, url, "name=Bo&email=bo%40example.com&comments=again", {
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    });
    expect(form.text).toContain("Your feedback has been sent");
    const bodies = await queuedBodies(db, p.projectId);
    expect(bodies).toHaveLength(2);
    const env = parseEnvelope(bodies[0] as Buffer, LIMITS);
    expect(env.headers.event_id).toBe(eventId);
    expect(env.items[0]?.headers).toEqual({ type: "user_report", errata_source: "crash_report_dialog" });
    expect(JSON.parse(Buffer.from(env.items[0]?.payload ?? []).toString())).toEqual({
      event_id: eventId,
      name: "Ada",
      email: "ada@example.com",
      comments: "Clicked save",
    });

    expect((await request(s.base, `/api/embed/error-page/?dsn=${dsn}`)).json.code).toBe("validation_failed");
    expect((await request(s.base, `/api/embed/error-page/?eventId=${eventId}`)).json.code).toBe("validation_failed");
    expect(
      (await request(s.base, `/api/embed/error-page/?dsn=http://${p.disabledKey}@errata.test/${p.projectId}&eventId=${eventId}`)).status,
    ).toBe(403);
    expect((await request(s.base, `/api/embed/error-page/?dsn=http://${p.key}@errata.test/999999&eventId=${eventId}`)).status).toBe(404);
  });
});

describe.each(await dialects())("rate limits and backpressure on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("per key and per project: 429 with the headers SDKs parse; sessions and client reports still flow", async () => {
    const p = await seedProject(db, "limited");
    const s = await startHandler(db, {
      RATE_LIMIT_KEY_EVENTS: "2",
      RATE_LIMIT_PROJECT_EVENTS: "3",
      RATE_LIMIT_WINDOW_SECONDS: "3600",
      OUTCOME_FLUSH_MS: "50",
    });
    try {
      const url = (key: string) => `/api/${p.projectId}/envelope/?sentry_key=${key}`;
      expect((await request(s.base, url(p.key), eventEnvelope(newId()))).status).toBe(200);
      expect((await request(s.base, `/api/${p.projectId}/store/?sentry_key=${p.key}`, '{"message":"store"}')).status).toBe(200);
      const limited = await request(
        s.base,
        url(p.key),
        eventEnvelope(newId(), { message: "x" }, '\n{"type":"attachment","length":1}\nz\n{"type":"profile"}\n{}'),
      );
      expectRateLimited(limited, /^\d+:error;default;security:key:key_quota$/);
      // A session envelope is not an event: accepted while the key is limited.
      const session = `{}\n{"type":"session"}\n{"sid":"s","init":true,"started":"2026-01-01T00:00:00Z","attrs":{"release":"a@1"}}`;
      expect((await request(s.base, url(p.key), session)).status).toBe(200);
      // The other key has its own allowance, until the project's is used up.
      expect((await request(s.base, url(p.key2), eventEnvelope(newId()))).status).toBe(200);
      expectRateLimited(await request(s.base, url(p.key2), eventEnvelope(newId())), /^\d+:error;default;security:project:project_quota$/);
      const csp = JSON.stringify({ "csp-report": { "effective-directive": "img-src", "blocked-uri": "x" } });
      expectRateLimited(await request(s.base, `/api/${p.projectId}/security/?sentry_key=${p.key2}`, csp), /:project:project_quota$/);
      await until(async () => (await outcomeCounts(db, p.projectId))["security rate_limited project_quota"] === 1, "rate limited outcomes");
      expect(await outcomeCounts(db, p.projectId)).toEqual({
        "error rate_limited key_quota": 1,
        "attachment rate_limited key_quota": 1,
        // Every item one outcome: the profile in the refused envelope is still counted, as filtered.
        "profile filtered unsupported_item": 1,
        "error rate_limited project_quota": 1,
        "security rate_limited project_quota": 1,
      });
    } finally {
      await s.close();
    }
  });

  test("a project's own limit from its settings (rateLimit.eventsPerMinute) is enforced by ingest", async () => {
    const p = await seedProject(db, "own-limit");
    await db.kysely
      .updateTable("projects")
      .set({ settings: JSON.stringify({ rateLimit: { eventsPerMinute: 2 } }) })
      .where("id", "=", p.projectId)
      .execute();
    const s = await startHandler(db, {});
    try {
      const url = `/api/${p.projectId}/envelope/?sentry_key=${p.key}`;
      expect((await request(s.base, url, eventEnvelope(newId()))).status).toBe(200);
      expect((await request(s.base, `/api/${p.projectId}/envelope/?sentry_key=${p.key2}`, eventEnvelope(newId()))).status).toBe(200);
      expectRateLimited(await request(s.base, url, eventEnvelope(newId())), /^\d+:error;default;security:project:project_quota$/);
    } finally {
      await s.close();
    }
  });

  test("installation backpressure: a deep queue or a full disk refuses everything (all categories)", async () => {
    const p = await seedProject(db, "pressure");
    const url = `/api/${p.projectId}/envelope/?sentry_key=${p.key}`;
    const s = await startHandler(db, { BACKPRESSURE_MAX_QUEUE: "2", BACKPRESSURE_CHECK_MS: "600000" });
    try {
      await s.handler.refreshBackpressure();
      const depth = await queueDepth(db);
      for (let i = 0; depth + i <= 2; i++) expect((await request(s.base, url, eventEnvelope(newId()))).status).toBe(200);
      await s.handler.refreshBackpressure();
      const r = await request(s.base, url, eventEnvelope(newId()));
      expectRateLimited(r, /^60::organization:queue_full$/);
      expect(Number(r.headers["retry-after"])).toBe(60);
      // Even a session is refused: the SDK stops sending everything for the window.
      expect((await request(s.base, url, '{}\n{"type":"session"}\n{}')).status).toBe(429);
      expect(await registry.getSingleMetricAsString("errata_queue_depth")).toMatch(/errata_queue_depth \d+/);
    } finally {
      await s.close();
    }
    if (dialect !== "sqlite") return;
    // 100 TiB free required: no test machine has that.
    const disk = await startHandler(db, { BACKPRESSURE_MIN_FREE_DISK_MB: String(100 * 1024 * 1024), BACKPRESSURE_MAX_QUEUE: "0" });
    try {
      await disk.handler.refreshBackpressure();
      expectRateLimited(await request(disk.base, url, eventEnvelope(newId())), /^60::organization:disk_full$/);
    } finally {
      await disk.close();
    }
  });
});
