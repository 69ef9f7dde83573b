/**
 * Prometheus metrics served at /metrics. One registry per process; modules register their own
 * counters here so /metrics shows ingest, queue and process figures together.
 */
import { BroadcastChannel, isMainThread } from "node:worker_threads";
import client from "prom-client";

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: "errata_" });

export const ingestRequests = new client.Counter({
  name: "errata_ingest_requests_total",
  help: "Ingest requests by endpoint and outcome code (ok or a catalogue code).",
  labelNames: ["endpoint", "code"] as const,
  registers: [registry],
});

export const queueDepthGauge = new client.Gauge({
  name: "errata_queue_depth",
  help: "Accepted items waiting for the digest worker.",
  registers: [registry],
});

/**
 * Outcome counters (SPEC §3), the same counts the `outcomes` table accumulates. The digest worker
 * runs in a worker_thread with its own copy of this module: its counts travel to the main thread
 * (which serves /metrics) over a BroadcastChannel.
 */
export const outcomesTotal = new client.Counter({
  name: "errata_outcomes_total",
  help: "Envelope items by project, data category, outcome (accepted, filtered, rate_limited, invalid, client_discard) and reason.",
  labelNames: ["project", "category", "outcome", "reason"] as const,
  registers: [registry],
});

export interface OutcomeMetric {
  projectId: number;
  category: string;
  outcome: string;
  reason: string;
  quantity: number;
}

const outcomeChannel = new BroadcastChannel("errata:outcomes");
// Neither side may keep a thread alive just for metrics.
(outcomeChannel as unknown as { unref?: () => void }).unref?.();
if (isMainThread) {
  outcomeChannel.onmessage = (ev: unknown) => {
    const data = (ev as { data?: unknown }).data;
    if (Array.isArray(data)) addOutcomeMetrics(data as OutcomeMetric[]);
  };
}

function addOutcomeMetrics(counts: readonly OutcomeMetric[]): void {
  for (const c of counts) {
    if (!(c.quantity > 0)) continue;
    outcomesTotal.inc({ project: String(c.projectId), category: c.category, outcome: c.outcome, reason: c.reason || "none" }, c.quantity);
  }
}

/** Counts committed outcomes on /metrics (from any thread of the process). */
export function countOutcomeMetrics(counts: readonly OutcomeMetric[]): void {
  if (counts.length === 0) return;
  if (isMainThread) {
    addOutcomeMetrics(counts);
    return;
  }
  outcomeChannel.postMessage(
    counts.map((c) => ({ projectId: c.projectId, category: c.category, outcome: c.outcome, reason: c.reason, quantity: c.quantity })),
  );
}

/**
 * Alert deliveries (issue 11) per channel kind and result: sent, failed (for good) or retried.
 * Counted by the delivery loop in the worker thread and relayed like the outcome counters.
 */
export const notificationsTotal = new client.Counter({
  name: "errata_notifications_total",
  help: "Alert notification delivery attempts by channel kind and result (sent, failed, retried).",
  labelNames: ["channel", "result"] as const,
  registers: [registry],
});

const notificationChannel = new BroadcastChannel("errata:notifications");
(notificationChannel as unknown as { unref?: () => void }).unref?.();
if (isMainThread) {
  notificationChannel.onmessage = (ev: unknown) => {
    const d = (ev as { data?: { channel?: unknown; result?: unknown } }).data;
    if (typeof d?.channel === "string" && typeof d.result === "string") notificationsTotal.inc({ channel: d.channel, result: d.result });
  };
}

export function countNotification(channel: string, result: "sent" | "failed" | "retried"): void {
  if (isMainThread) notificationsTotal.inc({ channel, result });
  else notificationChannel.postMessage({ channel, result });
}
