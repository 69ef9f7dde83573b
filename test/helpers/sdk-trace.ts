/**
 * A distributed trace made by the real @sentry/node (unchanged), as two services send it: `web`
 * serves GET /checkout and calls `api` (a second process continuing the trace from the
 * sentry-trace/baggage headers, as an HTTP server would), which runs a query, writes logs,
 * records Sentry.metrics (a counter, a gauge, a distribution) and captures an error. Resolves when
 * Errata has digested all of it (read back through the trace-meta endpoint).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { eventually, ROOT } from "./server.js";

const WEB = `
import * as Sentry from "@sentry/node";
import { execFileSync } from "node:child_process";
Sentry.init({ dsn: process.env.WEB_DSN, release: "web@1.0.0", environment: "production", tracesSampleRate: 1, enableLogs: true });
let traceId;
await Sentry.startSpan({ name: "GET /checkout", op: "http.server" }, async (root) => {
  traceId = root.spanContext().traceId;
  Sentry.logger.info("checkout page requested", { step: "render" });
  await Sentry.startSpan({ name: "POST /api/pay", op: "http.client" }, async () => {
    const headers = Sentry.getTraceData();
    execFileSync(process.execPath, [process.env.API_SCRIPT], {
      env: { ...process.env, SENTRY_TRACE: headers["sentry-trace"] ?? "", BAGGAGE: headers.baggage ?? "" },
      stdio: ["ignore", "ignore", "inherit"],
    });
  });
});
await Sentry.flush(10000);
await Sentry.close(10000);
console.log(JSON.stringify({ traceId }));
`;

const API = `
import * as Sentry from "@sentry/node";
Sentry.init({ dsn: process.env.API_DSN, release: "api@1.0.0", environment: "production", tracesSampleRate: 1, enableLogs: true });
await Sentry.continueTrace({ sentryTrace: process.env.SENTRY_TRACE, baggage: process.env.BAGGAGE }, () =>
  Sentry.startSpan({ name: "POST /api/pay", op: "http.server", forceTransaction: true }, async () => {
    await Sentry.startSpan({ name: "SELECT * FROM payments WHERE cart = $1", op: "db" }, async () => {
      await new Promise((r) => setTimeout(r, 5));
    });
    Sentry.logger.info("payment started", { cart: 42, gateway: "acme-pay" });
    Sentry.logger.error("payment failed: card declined", { cart: 42, gateway: "acme-pay" });
    Sentry.metrics.count("checkout.attempts", 1, { attributes: { gateway: "acme-pay" } });
    Sentry.metrics.gauge("queue.depth", 7);
    Sentry.metrics.distribution("payment.latency", 120, { unit: "millisecond" });
    Sentry.captureException(new Error("card declined"));
  }),
);
await Sentry.flush(10000);
await Sentry.close(10000);
`;

export interface SdkTrace {
  traceId: string;
}

/** Runs both services against the two DSNs; waits until `meta(traceId)` shows everything stored. */
export async function sendDistributedTrace(
  webDsn: URL | string,
  apiDsn: URL | string,
  // biome-ignore lint/suspicious/noExplicitAny: trace-meta's body, checked by the wait
  meta: (traceId: string) => Promise<any>,
): Promise<SdkTrace> {
  const dir = path.join(ROOT, ".tmp", `sdk-trace-${process.pid}-${Date.now()}`);
  fs.mkdirSync(dir, { recursive: true });
  const web = path.join(dir, "web.mjs");
  const api = path.join(dir, "api.mjs");
  fs.writeFileSync(web, WEB);
  fs.writeFileSync(api, API);
  let traceId: string;
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [web], {
      env: { ...process.env, WEB_DSN: String(webDsn), API_DSN: String(apiDsn), API_SCRIPT: api },
      timeout: 60_000,
    });
    traceId = (JSON.parse(stdout.trim().split("\n").at(-1) as string) as { traceId: string }).traceId;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await eventually(
    async () => {
      const m = await meta(traceId);
      return m && m.spansCount >= 4 && m.errorsCount >= 1 && m.logsCount >= 3 && m.metricsCount >= 3 ? m : undefined;
    },
    60_000,
    `trace ${traceId} digested`,
  );
  return { traceId };
}

/**
 * One small trace in one project through the envelope endpoint (no SDK: fixtures of the security
 * matrices): an error event in it, two spans (`v2` span container) and a log, each naming `marker`
 * so a read that leaks them to someone else is seen.
 */
export async function sendTraceEnvelope(dsn: URL, marker: string): Promise<{ traceId: string; spanId: string; eventId: string }> {
  const traceId = crypto.randomUUID().replace(/-/g, "");
  const eventId = crypto.randomUUID().replace(/-/g, "");
  const rootId = traceId.slice(0, 16);
  const spanId = traceId.slice(16);
  const now = Date.now() / 1000;
  const event = {
    event_id: eventId,
    timestamp: now,
    platform: "javascript",
    level: "error",
    transaction: `${marker} /checkout`,
    contexts: { trace: { trace_id: traceId, span_id: spanId } },
    exception: { values: [{ type: "Error", value: `${marker} failure in a trace` }] },
  };
  const span = (id: string, parent: string | null, name: string) => ({
    trace_id: traceId,
    span_id: id,
    parent_span_id: parent,
    name,
    start_timestamp: now - 1,
    end_timestamp: now,
    status: "ok",
    attributes: { "sentry.op": { type: "string", value: parent ? "db" : "http.server" }, marker: { type: "string", value: marker } },
  });
  const spans = { version: 2, items: [span(rootId, null, `${marker} /checkout`), span(spanId, rootId, `${marker} query`)] };
  const logs = {
    version: 2,
    items: [{ timestamp: now, trace_id: traceId, span_id: spanId, level: "error", body: `${marker} log line`, attributes: {} }],
  };
  const lines = [
    JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() }),
    JSON.stringify({ type: "event" }),
    JSON.stringify(event),
    JSON.stringify({ type: "span", item_count: 2, content_type: "application/vnd.sentry.items.span.v2+json" }),
    JSON.stringify(spans),
    JSON.stringify({ type: "log", item_count: 1, content_type: "application/vnd.sentry.items.log+json" }),
    JSON.stringify(logs),
    "",
  ];
  const res = await fetch(`${dsn.protocol}//${dsn.host}/api/${dsn.pathname.slice(1)}/envelope/`, {
    method: "POST",
    headers: { "content-type": "application/x-sentry-envelope", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
    body: lines.join("\n"),
  });
  if (res.status !== 200) throw new Error(`envelope answered ${res.status}: ${await res.text()}`);
  return { traceId, spanId, eventId };
}
