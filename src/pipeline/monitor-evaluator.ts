/**
 * The schedule evaluator (worker role): marks missed check-ins (no check-in by the expected time +
 * margin) and timed-out ones (in_progress past max runtime). Runs at start — so a deadline that
 * passed while Errata was down is caught on the first tick — and every `tickMs`. On PostgreSQL
 * one worker at a time leads (transaction-scoped advisory lock); the compare-and-set on each
 * deadline and the (environment, check_in_id) key make every miss and timeout happen exactly once
 * even without it.
 */
import type { LifecycleConfig } from "../core/issue-state/types";
import { missedSince } from "../core/monitors/schedule";
import type { Logger } from "../log";
import type { Db } from "../storage/db";
import { writeTx } from "../storage/dialect";
import {
  closeCheckIn,
  getEnvironment,
  getMonitor,
  insertCheckIn,
  listOverdueEnvironments,
  listTimedOutCheckIns,
  tryEvaluatorLock,
  updateEnvironment,
} from "../storage/monitors/monitors";
import { recordResult } from "./monitor-checkins";
import { monitorNow } from "./monitor-clock";

const BATCH = 100;

export interface EvaluationResult {
  missed: number;
  timedOut: number;
  /** false: another process leads */
  led: boolean;
}

export async function evaluateMonitors(db: Db, now: number, lifecycle?: LifecycleConfig): Promise<EvaluationResult> {
  const ctx = { lifecycle };
  return writeTx(db, async (tx) => {
    if (!(await tryEvaluatorLock(tx, db.dialect))) return { missed: 0, timedOut: 0, led: false };
    let missed = 0;
    let timedOut = 0;
    for (const env of await listOverdueEnvironments(tx, now, BATCH)) {
      const monitor = await getMonitor(tx, env.monitorId);
      if (!monitor || env.nextCheckinAt === null) continue;
      const m = missedSince(monitor.config, env.nextCheckinAt, now);
      const moved = await updateEnvironment(
        tx,
        env.id,
        { nextCheckinAt: m.next.nextCheckIn, nextCheckinLatest: m.next.nextCheckInLatest },
        env.nextCheckinLatest,
      );
      if (!moved) continue;
      let current = env;
      for (const expected of m.missed) {
        const checkInId = `missed-${expected}`;
        const ok = await insertCheckIn(tx, {
          monitorId: monitor.id,
          environmentId: env.id,
          projectId: monitor.projectId,
          checkInId,
          status: "missed",
          durationMs: null,
          release: null,
          expectedAt: expected,
          timeoutAt: null,
          at: expected,
        });
        if (!ok) continue;
        missed += 1;
        current = await recordResult(tx, ctx, monitor, current, { status: "missed", checkInId, release: null, at: now });
      }
    }
    for (const c of await listTimedOutCheckIns(tx, now, BATCH)) {
      const monitor = await getMonitor(tx, c.monitorId);
      if (!monitor || c.timeoutAt === null) continue;
      if (!(await closeCheckIn(tx, c.id, "timeout", c.timeoutAt - c.createdAt, now))) continue;
      timedOut += 1;
      const env = await getEnvironment(tx, c.environmentId);
      if (env) await recordResult(tx, ctx, monitor, env, { status: "timeout", checkInId: c.checkInId, release: c.release, at: now });
    }
    return { missed, timedOut, led: true };
  });
}

export interface EvaluatorOptions {
  db: Db;
  tickMs: number;
  log: Logger;
  signal: AbortSignal;
  lifecycle?: LifecycleConfig;
  now?: () => number;
}

/** The evaluator loop; resolves when the signal aborts. Errors are logged, never fatal. */
export async function runMonitorEvaluator(opts: EvaluatorOptions): Promise<void> {
  const now = opts.now ?? monitorNow;
  while (!opts.signal.aborted) {
    try {
      const r = await evaluateMonitors(opts.db, now(), opts.lifecycle);
      if (r.missed + r.timedOut > 0) opts.log.info(r, "monitors evaluated");
    } catch (err) {
      opts.log.error({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, "monitor evaluation failed");
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        opts.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, opts.tickMs);
      opts.signal.addEventListener("abort", done, { once: true });
    });
  }
}
