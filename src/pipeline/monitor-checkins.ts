/**
 * Check-ins into monitor state, inside the digest transaction (process-items.ts calls in for each
 * `check_in` item) and from the evaluator (missed, timeout). Idempotent under the at-least-once
 * queue: a check-in is keyed by (environment, check_in_id) and closing one is a compare-and-set.
 */
import { createHash } from "node:crypto";
import type { LifecycleConfig } from "../core/issue-state/types";
import { type CheckIn, ZERO_CHECK_IN_ID } from "../core/monitors/checkin";
import { expectationAfter, isFailure, nextStreak, timeoutAt } from "../core/monitors/schedule";
import type { Tx } from "../storage/dialect";
import {
  closeCheckIn,
  findCheckIn,
  findMonitor,
  getOrCreateEnvironment,
  insertCheckIn,
  insertMonitor,
  latestOpenCheckIn,
  type MonitorEnvRecord,
  type MonitorRecord,
  updateEnvironment,
  updateMonitor,
} from "../storage/monitors/monitors";
import { raiseMonitorIssue, resolveMonitorIssue } from "./monitor-issues";

/**
 * How many claims a lone check-in for an unknown monitor gets before it is filtered
 * (process-items.ts, checkInWaits), and the pause after each: 0.5, 1, 2, 4, 8 s. Far longer than
 * a concurrent digest transaction takes to commit, short enough that a check-in for a monitor
 * that never comes costs little.
 */
export const MONITOR_WAIT_ATTEMPTS = 6;
export function monitorWaitMs(attempts: number): number {
  return 500 * 2 ** Math.max(0, attempts - 1);
}

export interface MonitorCtx {
  lifecycle?: LifecycleConfig;
}

/** accepted, or the filtered reason (unknown monitor without config, paused monitor, already closed). */
export type CheckInOutcome = "accepted" | "monitor_not_found" | "monitor_disabled" | "duplicate";

export async function storeCheckIn(tx: Tx, ctx: MonitorCtx, projectId: number, sent: CheckIn, at: number): Promise<CheckInOutcome> {
  const monitor = await monitorFor(tx, projectId, sent, at);
  if (!monitor) return "monitor_not_found";
  if (monitor.status === "paused") return "monitor_disabled";
  const env = await getOrCreateEnvironment(tx, monitor.id, sent.environment, at);
  const c = { ...sent, checkInId: await resolveCheckInId(tx, env.id, sent, at) };
  const existing = await findCheckIn(tx, env.id, c.checkInId);
  if (existing) {
    if (c.status === "in_progress") return "duplicate";
    const durationMs = c.duration !== null ? Math.round(c.duration * 1000) : Math.max(0, at - existing.createdAt);
    if (!(await closeCheckIn(tx, existing.id, c.status, durationMs, at))) return "duplicate";
    await recordResult(tx, ctx, monitor, env, { status: c.status, checkInId: c.checkInId, release: c.release, at });
    return "accepted";
  }
  const inserted = await insertCheckIn(tx, {
    monitorId: monitor.id,
    environmentId: env.id,
    projectId,
    checkInId: c.checkInId,
    status: c.status,
    durationMs: c.duration !== null ? Math.round(c.duration * 1000) : null,
    release: c.release,
    expectedAt: env.nextCheckinAt,
    timeoutAt: c.status === "in_progress" ? timeoutAt(monitor.config, at) : null,
    at,
  });
  if (!inserted) return "duplicate";
  // Any check-in (even in_progress) satisfies the current expectation and sets the next one.
  const next = expectationAfter(monitor.config, at);
  await updateEnvironment(tx, env.id, { lastCheckinAt: at, nextCheckinAt: next.nextCheckIn, nextCheckinLatest: next.nextCheckInLatest });
  if (c.status !== "in_progress")
    await recordResult(tx, ctx, monitor, env, { status: c.status, checkInId: c.checkInId, release: c.release, at });
  return "accepted";
}

/**
 * The id a check-in is stored under. Sentry's zero id closes the most recent open check-in
 * (ok/error) or starts a new one, so curl jobs that send no id still pair up. A new one's id
 * derives from the environment and the receive time, so a redelivered queue item is the same
 * check-in, not a second one.
 */
async function resolveCheckInId(tx: Tx, environmentId: number, c: CheckIn, at: number): Promise<string> {
  if (c.checkInId !== ZERO_CHECK_IN_ID) return c.checkInId;
  const open = c.status === "in_progress" ? undefined : await latestOpenCheckIn(tx, environmentId);
  return open?.checkInId ?? createHash("md5").update(`${environmentId}:${at}:${c.status}`).digest("hex");
}

/** The monitor, created or reconfigured from the check-in's monitor_config (Sentry's upsert). */
async function monitorFor(tx: Tx, projectId: number, c: CheckIn, at: number): Promise<MonitorRecord | undefined> {
  const found = await findMonitor(tx, projectId, c.monitorSlug);
  if (!c.config) return found;
  if (!found) return insertMonitor(tx, { projectId, slug: c.monitorSlug, name: c.monitorSlug, config: c.config }, at);
  if (JSON.stringify(found.config) === JSON.stringify(c.config)) return found;
  await updateMonitor(tx, found.id, { config: c.config }, at);
  return { ...found, config: c.config };
}

export interface CheckInResult {
  status: string;
  checkInId: string;
  release: string | null;
  at: number;
}

/**
 * A finished check-in (ok, error, missed, timeout) moves the environment's status and streak;
 * enough failures in a row raise the issue (unless muted), enough successes resolve it.
 * Returns the environment as updated.
 */
export async function recordResult(
  tx: Tx,
  ctx: MonitorCtx,
  monitor: MonitorRecord,
  env: MonitorEnvRecord,
  r: CheckInResult,
): Promise<MonitorEnvRecord> {
  const streak = nextStreak(env, r.status);
  let issueId = env.issueId;
  if (isFailure(r.status) && streak.failures >= monitor.config.failureIssueThreshold && !monitor.muted) {
    const status = r.status as "error" | "missed" | "timeout";
    issueId = await raiseMonitorIssue(tx, { monitor, env, status, checkInId: r.checkInId, release: r.release, at: r.at }, ctx.lifecycle);
  } else if (r.status === "ok" && issueId !== null && streak.successes >= monitor.config.recoveryThreshold) {
    await resolveMonitorIssue(tx, monitor, issueId, r.at);
    issueId = null;
  }
  const updated = { ...env, status: r.status, failures: streak.failures, successes: streak.successes, issueId };
  await updateEnvironment(tx, env.id, { status: r.status, failures: streak.failures, successes: streak.successes, issueId });
  return updated;
}
