/**
 * A monitor's failures become an issue, through the same storage functions as ordinary events
 * (find by hash or create, insert the event, count it, lifecycle step), so alert rules, the issue
 * stream and the activity log treat it like any other issue: one issue per monitor and
 * environment; a failure after recovery reopens it (regression activity). Recovery resolves it
 * (state_change activity, actor Errata).
 */
import { createHash } from "node:crypto";
import { resolve } from "../core/issue-state/index";
import type { LifecycleConfig } from "../core/issue-state/types";
import { describeSchedule } from "../core/monitors/checkin";
import { normalizeEvent } from "../core/normalize-event";
import { statTagsOf } from "../core/search/event-tags";
import type { Tx } from "../storage/dialect";
import { insertEvent } from "../storage/events/events";
import { insertActivities } from "../storage/issues/activity";
import { findIssueByHashes, insertIssue, recordIssueEvent } from "../storage/issues/issues";
import { readIssueForUpdate, writeIssueState } from "../storage/issues/lifecycle";
import { IssueStatsBatch, writeIssueStats } from "../storage/issues/stats";
import { listCheckIns, type MonitorEnvRecord, type MonitorRecord } from "../storage/monitors/monitors";
import { applyEventLifecycle } from "./lifecycle-step";

const REASONS: Record<string, string> = {
  error: "An error check-in was detected",
  missed: "A missed check-in was detected",
  timeout: "A check-in timed out (max runtime exceeded)",
};

export interface MonitorFailure {
  monitor: MonitorRecord;
  env: MonitorEnvRecord;
  status: "error" | "missed" | "timeout";
  /** the failing check-in's own id (SDK id or `missed-<ms>`) */
  checkInId: string;
  release: string | null;
  at: number;
}

/** The grouping hash of a monitor environment's issue. */
export function monitorIssueHash(monitorId: number, environment: string): string {
  return createHash("sha256").update(`monitor\u0000${monitorId}\u0000${environment}`).digest("hex").slice(0, 32);
}

/** Records the failure as an event on the monitor's issue (created or reopened); returns the issue id. */
export async function raiseMonitorIssue(tx: Tx, f: MonitorFailure, lifecycle?: LifecycleConfig): Promise<number> {
  const { monitor, env } = f;
  const projectId = monitor.projectId;
  const hash = monitorIssueHash(monitor.id, env.environment);
  const title = `Cron failure: ${monitor.name}`;
  const culprit = REASONS[f.status];
  const history = await listCheckIns(tx, monitor.id, { environmentId: env.id, limit: 10 });
  const event = normalizeEvent(
    {
      event_id: eventIdOf(env.id, f.checkInId),
      timestamp: f.at / 1000,
      platform: "other",
      level: "error",
      logger: "monitors",
      message: `${culprit}: ${monitor.slug} (${env.environment})`,
      environment: env.environment,
      release: f.release ?? undefined,
      tags: { "monitor.slug": monitor.slug, "monitor.check_in_status": f.status },
      contexts: { monitor: monitorContext(f) },
      // The check-in history at the time of the failure, oldest first, as the issue page's breadcrumbs.
      breadcrumbs: history.reverse().map((c) => ({
        timestamp: c.createdAt / 1000,
        category: "monitor.check_in",
        level: c.status === "ok" ? "info" : c.status === "in_progress" ? "debug" : "error",
        message: `${c.status}${c.durationMs !== null ? ` after ${c.durationMs} ms` : ""} (${c.environment})`,
      })),
      fingerprint: [`monitor:${monitor.id}:${env.environment}`],
    },
    { receivedAt: f.at, clientIp: null },
  );
  const found = await findIssueByHashes(tx, projectId, [hash]);
  let issueId = found?.issueId;
  let created = false;
  if (issueId === undefined) {
    const res = await insertIssue(tx, {
      projectId,
      title,
      culprit,
      type: "monitor_check_in_failure",
      level: "error",
      metadata: { title, value: culprit, monitor: monitor.slug, environment: env.environment },
      seenAt: f.at,
      release: f.release,
      hashes: [hash],
      groupingVersion: "monitor",
    });
    issueId = res.id;
    created = res.created;
  }
  const inserted = await insertEvent(tx, {
    projectId,
    issueId,
    eventId: event.event_id,
    receivedAt: f.at,
    timestamp: f.at,
    level: "error",
    platform: "other",
    release: f.release,
    environment: env.environment,
    title,
    culprit,
    userKey: null,
    traceId: null,
    digest: null,
    payload: event,
  });
  // The same failure raised twice (a retried queue row): counted once.
  if (!inserted) return issueId;
  const state = await recordIssueEvent(tx, issueId, {
    seenAt: f.at,
    level: "error",
    eventId: event.event_id,
    release: f.release,
    newUser: false,
  });
  // Trend chart and tag counts, as the digest writes them for every event.
  const stats = new IssueStatsBatch();
  stats.add(issueId, projectId, f.at, statTagsOf(event));
  await writeIssueStats(tx, stats);
  await applyEventLifecycle(
    tx,
    {
      projectId,
      issueId,
      created,
      state,
      eventId: event.event_id,
      receivedAt: f.at,
      release: f.release,
      // Alert rules filter and describe this event (environment, tags, level) like any other.
      alert: { event, title, culprit, newUser: false, digestKey: null },
    },
    f.at,
    lifecycle,
  );
  return issueId;
}

/** Recovery: resolves the monitor's issue (if still unresolved), with an activity entry. */
export async function resolveMonitorIssue(tx: Tx, monitor: MonitorRecord, issueId: number, at: number): Promise<void> {
  // No row lock: the write below is a compare-and-set on the state just read (both dialects).
  const locked = await readIssueForUpdate(tx, "sqlite", issueId);
  if (locked?.state.status !== "unresolved") return;
  const prev = locked.state;
  const t = resolve(prev, { kind: "now" }, null, at);
  if (!t.changed) return;
  const expect = { status: prev.status, substatus: prev.substatus, statusChangedAt: prev.statusChangedAt };
  if (!(await writeIssueState(tx, issueId, t.state, null, expect))) return;
  for (const a of t.activities) a.data.monitor = { slug: monitor.slug, reason: "recovered" };
  await insertActivities(tx, issueId, locked.projectId, t.activities, at);
}

function monitorContext(f: MonitorFailure): Record<string, unknown> {
  return {
    slug: f.monitor.slug,
    name: f.monitor.name,
    environment: f.env.environment,
    status: f.status,
    schedule: describeSchedule(f.monitor.config.schedule),
    timezone: f.monitor.config.timezone,
    check_in_id: f.checkInId,
  };
}

function eventIdOf(envId: number, checkInId: string): string {
  return createHash("sha256").update(`monitor-event\u0000${envId}\u0000${checkInId}`).digest("hex").slice(0, 32);
}
