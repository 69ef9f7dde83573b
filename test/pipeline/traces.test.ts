/**
 * Transactions, spans, logs and Sentry.metrics samples (trace_metric items) from the real
 * @sentry/node (tracesSampleRate 1, enableLogs) are kept, scrubbed, counted accepted, stored once
 * when re-delivered, and read back for the trace of the error that happened inside them; retention
 * trims them with the project's events.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runRetention } from "../../src/pipeline/retention";
import type { Db } from "../../src/storage/db";
import { getEvent } from "../../src/storage/events/events";
import { traceMetrics } from "../../src/storage/events/trace-metrics";
import { readTrace } from "../../src/storage/events/traces";
import { dialects, openTestDb } from "../helpers/test-db";
import { type HandlerServer, outcomeCounts, request, seedProject, startHandler } from "../ingest/helpers";
import { drain } from "./helpers";

async function runSdk(name: string, source: string, env: Record<string, string>): Promise<void> {
  const dir = path.join(process.cwd(), ".tmp", `sdk-${name}-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "run.mjs");
  fs.writeFileSync(file, source);
  try {
    await promisify(execFile)(process.execPath, [file], { env: { ...process.env, ...env }, timeout: 45_000 });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const SDK_SCRIPT = [
  'import * as Sentry from "@sentry/node";',
  'Sentry.init({ dsn: process.env.DSN, release: "shop@1.0.0", tracesSampleRate: 1, enableLogs: true });',
  'await Sentry.startSpan({ name: "GET /checkout", op: "http.server" }, async () => {',
  '  await Sentry.startSpan({ name: "SELECT * FROM carts WHERE id = $1", op: "db" }, async () => {',
  "    await new Promise((r) => setTimeout(r, 5));",
  "  });",
  '  Sentry.logger.info("checkout started", { cart: 42, password: "hunter2-very-secret" });',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the test app's source, written as text
  '  Sentry.logger.error(Sentry.logger.fmt`payment failed for ${"user-1"}`);',
  '  Sentry.metrics.count("checkout.attempts", 2, { attributes: { gateway: "acme-pay", token: "hunter2-very-secret" } });',
  '  Sentry.metrics.distribution("payment.latency", 120.5, { unit: "millisecond" });',
  '  Sentry.captureException(new Error("card declined"));',
  "});",
  "await Sentry.flush(10000);",
  "await Sentry.close(10000);",
].join("\n");

describe.each(await dialects())("traces and logs (%s)", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("the real SDK's spans and logs are stored, scrubbed and linked to the error by trace id", async () => {
    const p = await seedProject(db, "traces");
    const s: HandlerServer = await startHandler(db, { OUTCOME_FLUSH_MS: "50" });
    try {
      const host = s.base.slice("http://".length);
      await runSdk(`traces-${dialect}`, SDK_SCRIPT, { DSN: `http://${p.key}@${host}/${p.projectId}` });
    } finally {
      await s.close();
    }
    const now = Date.now();
    await drain(db, now);

    const ev = await db.kysely.selectFrom("events").select(["event_id"]).where("project_id", "=", p.projectId).executeTakeFirstOrThrow();
    const stored = await getEvent(db, p.projectId, ev.event_id);
    const traceId = (stored?.event as { contexts?: { trace?: { trace_id?: string } } } | undefined)?.contexts?.trace?.trace_id;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    const trace = await readTrace(db, p.projectId, traceId as string);
    const names = trace.spans.map((sp) => sp.name);
    expect(names).toContain("GET /checkout");
    expect(names).toContain("SELECT * FROM carts WHERE id = $1");
    const child = trace.spans.find((sp) => sp.op === "db");
    const root = trace.spans.find((sp) => sp.name === "GET /checkout");
    expect(child?.parentSpanId).toBe(root?.spanId);
    expect(child && child.end >= child.start).toBe(true);

    expect(trace.logs.map((l) => [l.level, l.body])).toEqual([
      ["info", "checkout started"],
      ["error", "payment failed for user-1"],
    ]);
    const attrs = JSON.parse(trace.logs[0]?.attributes ?? "{}") as Record<string, unknown>;
    expect(attrs.cart).toBe(42);
    // The project's scrubbing applies to logs as to events.
    expect(JSON.stringify(trace.logs)).not.toContain("hunter2");

    // Sentry.metrics: one sample per call, in the error's trace, attributes kept (and scrubbed).
    const metrics = await traceMetrics(db, [p.projectId], traceId as string, 10);
    expect(metrics.map((m) => [m.name, m.type, m.value, m.unit])).toEqual([
      ["checkout.attempts", "counter", 2, null],
      ["payment.latency", "distribution", 120.5, "millisecond"],
    ]);
    expect(JSON.parse(metrics[0]?.attributes ?? "{}")).toMatchObject({ gateway: "acme-pay" });
    expect(JSON.stringify(metrics)).not.toContain("hunter2");

    const counts = await outcomeCounts(db, p.projectId);
    expect(counts["error accepted"]).toBe(1);
    expect(counts["log_item accepted"]).toBe(2);
    expect(counts["trace_metric accepted"]).toBe(2);
    expect((counts["span accepted"] ?? 0) + (counts["transaction accepted"] ?? 0)).toBeGreaterThan(0);
    // Nothing the SDK sent is counted as unsupported any more.
    expect(Object.keys(counts).filter((k) => k.includes("unsupported"))).toEqual([]);
  });

  test("re-delivered spans and logs are stored once; a transaction item becomes spans", async () => {
    const p = await seedProject(db, "redelivery");
    const s = await startHandler(db);
    const trace = "c".repeat(32);
    const t0 = Date.now() / 1000;
    const body = [
      JSON.stringify({ event_id: "d".repeat(32) }),
      JSON.stringify({ type: "transaction" }),
      JSON.stringify({
        type: "transaction",
        transaction: "POST /pay",
        start_timestamp: t0,
        timestamp: t0 + 0.2,
        contexts: { trace: { trace_id: trace, span_id: "1".repeat(16), op: "http.server", status: "internal_error" } },
        spans: [
          {
            span_id: "2".repeat(16),
            parent_span_id: "1".repeat(16),
            op: "http.client",
            description: "POST https://psp.example/charge",
            start_timestamp: t0 + 0.01,
            timestamp: t0 + 0.15,
          },
        ],
      }),
      JSON.stringify({ type: "log", item_count: 1, content_type: "application/vnd.sentry.items.log+json" }),
      JSON.stringify({ version: 2, items: [{ timestamp: t0 + 0.1, level: "warn", body: "psp slow", trace_id: trace }] }),
      JSON.stringify({ type: "trace_metric", item_count: 2, content_type: "application/vnd.sentry.items.trace-metric+json" }),
      JSON.stringify({
        version: 2,
        items: [
          { timestamp: t0 + 0.1, trace_id: trace, name: "psp.calls", type: "counter", value: 1, attributes: {} },
          { timestamp: t0 + 0.1, trace_id: trace, name: "bad", type: "set", value: 1 },
        ],
      }),
    ].join("\n");
    try {
      for (let i = 0; i < 2; i++) {
        const r = await request(s.base, `/api/${p.projectId}/envelope/?sentry_key=${p.key}`, body);
        expect(r.status).toBe(200);
      }
    } finally {
      await s.close();
    }
    await drain(db, Date.now());
    const read = await readTrace(db, p.projectId, trace);
    expect(read.spans.map((sp) => [sp.name, sp.op, sp.status])).toEqual([
      ["POST /pay", "http.server", "internal_error"],
      ["POST https://psp.example/charge", "http.client", null],
    ]);
    expect(read.logs.map((l) => [l.level, l.body])).toEqual([["warn", "psp slow"]]);
    // The metric sample once; the one of an unknown type counted invalid (each delivery).
    expect((await traceMetrics(db, [p.projectId], trace, 10)).map((m) => m.name)).toEqual(["psp.calls"]);
    const counts = await outcomeCounts(db, p.projectId);
    expect(counts["trace_metric accepted"]).toBe(2);
    expect(counts["trace_metric invalid invalid_metric"]).toBe(2);
    // Another project never sees them.
    const other = await seedProject(db, "other");
    expect(await readTrace(db, other.projectId, trace)).toMatchObject({ spans: [], logs: [] });

    // Retention: spans and logs go with the project's age limit.
    const r = await runRetention(db, {
      now: Date.now() + 91 * 24 * 3600 * 1000,
      defaults: { days: 90, eventCap: 1_000_000 },
      batchSize: 1,
      yieldBetween: async () => {},
    });
    expect(r.traceRows).toBeGreaterThanOrEqual(3);
    expect(await readTrace(db, p.projectId, trace)).toMatchObject({ spans: [], logs: [] });
    expect(await traceMetrics(db, [p.projectId], trace, 10)).toEqual([]);
  });

  test("a project over its cap keeps only its newest span and log rows", async () => {
    const p = await seedProject(db, "capped");
    const s = await startHandler(db);
    const trace = "e".repeat(32);
    try {
      for (let i = 0; i < 4; i++) {
        const span = { span_id: String(i + 1).repeat(16), trace_id: trace, start_timestamp: Date.now() / 1000, name: `span ${i}` };
        const body = `{}\n{"type":"span","content_type":"application/vnd.sentry.items.span.v2+json"}\n${JSON.stringify({ version: 2, items: [span] })}`;
        expect((await request(s.base, `/api/${p.projectId}/envelope/?sentry_key=${p.key}`, body)).status).toBe(200);
        // One digest per request, so each span has its own received time.
        await drain(db, Date.now());
      }
    } finally {
      await s.close();
    }
    await db.kysely
      .updateTable("projects")
      .set({ settings: JSON.stringify({ eventCap: 2 }) })
      .where("id", "=", p.projectId)
      .execute();
    await runRetention(db, { now: Date.now(), defaults: { days: 90, eventCap: 1_000_000 }, batchSize: 10, yieldBetween: async () => {} });
    const left = (await readTrace(db, p.projectId, trace)).spans.map((sp) => sp.name);
    expect(left.length).toBeLessThanOrEqual(2);
    expect(left).toContain("span 3");
  });
});
