/**
 * Uptime checks in the worker role: every tick, the monitors whose check is due are claimed
 * (compare-and-set on next_check_at, so several workers never check one slot twice), requested
 * through src/net/safe-request.ts under the installation's outbound policy, judged (core), stored,
 * and a monitor that goes down opens (or reopens) its issue — through the same storage functions
 * as events — which resolves when it comes back up.
 */
import { createHash } from "node:crypto";
import { resolve } from "../core/issue-state/index";
import { judgeResponse, nextCheckAt, nextUptimeState, type UptimeConfig, uptimeHeaders, uptimeUserAgent } from "../core/monitors/uptime";
import { normalizeEvent } from "../core/normalize-event";
import { statTagsOf } from "../core/search/event-tags";
import type { Logger } from "../log";
import { OutboundError, type OutboundPolicy, safeRequest } from "../net/safe-request";
import type { Db } from "../storage/db";
import { type Tx, writeTx } from "../storage/dialect";
import { insertEvent } from "../storage/events/events";
import { insertActivities } from "../storage/issues/activity";
import { findIssueByHashes, insertIssue, recordIssueEvent } from "../storage/issues/issues";
import { readIssueForUpdate, writeIssueState } from "../storage/issues/lifecycle";
import { IssueStatsBatch, writeIssueStats } from "../storage/issues/stats";
import {
  claimUptimeCheck,
  listDueUptimeMonitors,
  listUptimeResults,
  recordUptimeResult,
  type UptimeMonitorRecord,
  type UptimeResultRecord,
} from "../storage/monitors/uptime";
import { ERRATA_VERSION } from "../version";
import { applyEventLifecycle } from "./lifecycle-step";

const MAX_BODY = 256 * 1024;
const BATCH = 50;

export interface UptimeDeps {
  db: Db;
  policy: OutboundPolicy;
  now: () => number;
  /** PUBLIC_URL: named in the checks' User-Agent */
  publicUrl: string;
  log?: Logger;
}

/** One pass: checks every due monitor (concurrently) and returns how many were checked. */
export async function runUptimeChecks(deps: UptimeDeps): Promise<number> {
  const now = deps.now();
  const due = await listDueUptimeMonitors(deps.db, now, BATCH);
  const claimed: UptimeMonitorRecord[] = [];
  for (const m of due) {
    if (await claimUptimeCheck(deps.db, m.id, m.nextCheckAt, nextCheckAt(m.id, m.config.intervalS, now))) claimed.push(m);
  }
  await Promise.all(claimed.map((m) => checkOne(deps, m)));
  return claimed.length;
}

async function checkOne(deps: UptimeDeps, m: UptimeMonitorRecord): Promise<void> {
  const result = await probe(m.config, deps.policy, uptimeUserAgent(ERRATA_VERSION, deps.publicUrl));
  const checkedAt = deps.now();
  const outcome = judgeResponse(
    m.config,
    result.error !== null ? { error: result.error } : { status: result.status ?? 0, body: result.body },
  );
  try {
    await writeTx(deps.db, async (tx) => {
      const next = nextUptimeState(m.config, m, outcome.up);
      let issueId = m.issueId;
      const record: UptimeResultRecord = {
        checkedAt,
        up: outcome.up,
        status: result.status,
        latencyMs: result.latencyMs,
        error: outcome.reason,
      };
      if (next.changed === "down") issueId = await raiseUptimeIssue(tx, m, record, await listUptimeResults(tx, m.id, 0, 5));
      else if (next.changed === "up" && issueId !== null) {
        await resolveUptimeIssue(tx, issueId, m, checkedAt);
        issueId = null;
      }
      await recordUptimeResult(tx, m.id, record, { state: next.state, failures: next.failures, successes: next.successes, issueId });
    });
  } catch (err) {
    deps.log?.error({ monitorId: m.id, err: (err as Error)?.message }, "uptime result could not be stored");
  }
}

interface Probe {
  status: number | null;
  body: string;
  latencyMs: number | null;
  error: string | null;
}

async function probe(cfg: UptimeConfig, policy: OutboundPolicy, userAgent: string): Promise<Probe> {
  const started = performance.now();
  try {
    const r = await safeRequest(
      cfg.url,
      { method: cfg.method, headers: uptimeHeaders(cfg, userAgent), timeoutMs: cfg.timeoutMs, maxBodyBytes: MAX_BODY, maxRedirects: 5 },
      policy,
    );
    return { status: r.status, body: r.body.toString("utf8"), latencyMs: Math.round(r.elapsedMs), error: null };
  } catch (err) {
    const code = err instanceof OutboundError ? err.code : "network";
    return { status: null, body: "", latencyMs: Math.round(performance.now() - started), error: code };
  }
}

function hashOf(id: number): string {
  return createHash("sha256").update(`uptime\u0000${id}`).digest("hex").slice(0, 32);
}

/** Down: an event on the monitor's issue (created, or reopened as a regression) with the failing responses. */
async function raiseUptimeIssue(tx: Tx, m: UptimeMonitorRecord, r: UptimeResultRecord, recent: UptimeResultRecord[]): Promise<number> {
  const title = `Uptime: ${m.name} is down`;
  const culprit = m.config.url;
  const event = normalizeEvent(
    {
      event_id: createHash("sha256").update(`uptime-event\u0000${m.id}\u0000${r.checkedAt}`).digest("hex").slice(0, 32),
      timestamp: r.checkedAt / 1000,
      platform: "other",
      level: "error",
      logger: "uptime",
      message: `${m.config.method} ${m.config.url}: ${r.error ?? "down"}`,
      tags: { "uptime.monitor": String(m.id) },
      contexts: { uptime: { url: m.config.url, method: m.config.method, status: r.status, latency_ms: r.latencyMs, reason: r.error } },
      // The failing responses, oldest first.
      breadcrumbs: [...recent.reverse(), r].map((x) => ({
        timestamp: x.checkedAt / 1000,
        category: "uptime.check",
        level: x.up ? "info" : "error",
        message: `${x.up ? "up" : "down"}${x.status !== null ? ` status ${x.status}` : ""}${x.latencyMs !== null ? ` ${x.latencyMs} ms` : ""}${x.error ? ` (${x.error})` : ""}`,
      })),
    },
    { receivedAt: r.checkedAt, clientIp: null },
  );
  const hash = hashOf(m.id);
  const found = await findIssueByHashes(tx, m.projectId, [hash]);
  let issueId = found?.issueId;
  let created = false;
  if (issueId === undefined) {
    const res = await insertIssue(tx, {
      projectId: m.projectId,
      title,
      culprit,
      type: "uptime_domain_failure",
      level: "error",
      metadata: { title, value: culprit },
      seenAt: r.checkedAt,
      release: null,
      hashes: [hash],
      groupingVersion: "uptime",
    });
    issueId = res.id;
    created = res.created;
  }
  const inserted = await insertEvent(tx, {
    projectId: m.projectId,
    issueId,
    eventId: event.event_id,
    receivedAt: r.checkedAt,
    timestamp: r.checkedAt,
    level: "error",
    platform: "other",
    release: null,
    environment: null,
    title,
    culprit,
    userKey: null,
    traceId: null,
    digest: null,
    payload: event,
  });
  if (!inserted) return issueId;
  const state = await recordIssueEvent(tx, issueId, {
    seenAt: r.checkedAt,
    level: "error",
    eventId: event.event_id,
    release: null,
    newUser: false,
  });
  const stats = new IssueStatsBatch();
  stats.add(issueId, m.projectId, r.checkedAt, statTagsOf(event));
  await writeIssueStats(tx, stats);
  await applyEventLifecycle(
    tx,
    {
      projectId: m.projectId,
      issueId,
      created,
      state,
      eventId: event.event_id,
      receivedAt: r.checkedAt,
      release: null,
      // Alert rules filter and describe this event (tags, level) like any other.
      alert: { event, title, culprit, newUser: false, digestKey: null },
    },
    r.checkedAt,
  );
  return issueId;
}

async function resolveUptimeIssue(tx: Tx, issueId: number, m: UptimeMonitorRecord, at: number): Promise<void> {
  const locked = await readIssueForUpdate(tx, "sqlite", issueId);
  if (locked?.state.status !== "unresolved") return;
  const prev = locked.state;
  const t = resolve(prev, { kind: "now" }, null, at);
  const expect = { status: prev.status, substatus: prev.substatus, statusChangedAt: prev.statusChangedAt };
  if (!t.changed || !(await writeIssueState(tx, issueId, t.state, null, expect))) return;
  for (const a of t.activities) a.data.uptime = { monitor: m.name, reason: "up" };
  await insertActivities(tx, issueId, locked.projectId, t.activities, at);
}

/** The checker loop of the worker role; resolves when the signal aborts. Errors are logged, never fatal. */
export async function runUptimeLoop(deps: UptimeDeps & { tickMs: number; signal: AbortSignal }): Promise<void> {
  while (!deps.signal.aborted) {
    try {
      await runUptimeChecks(deps);
    } catch (err) {
      deps.log?.error({ err: (err as Error)?.message }, "uptime checks failed");
    }
    await new Promise<void>((done) => {
      const stop = () => {
        clearTimeout(timer);
        deps.signal.removeEventListener("abort", stop);
        done();
      };
      const timer = setTimeout(stop, deps.tickMs);
      deps.signal.addEventListener("abort", stop, { once: true });
    });
  }
}
