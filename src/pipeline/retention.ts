/**
 * Maintenance jobs of the digest worker:
 *
 * - retention (SPEC §9): events older than the project's retention (default 90 days) are deleted,
 *   then a project over its event cap (default 1,000,000) loses the oldest events of its most
 *   repeated issues first. An issue's first and latest events are never deleted; issue counters
 *   (events, users) are never touched, so counts stay exact.
 * - the lifecycle sweep: time-based issue transitions (new → ongoing, regressed → ongoing,
 *   ignored-until-time → unresolved) with their activity rows.
 *
 * Everything runs in short transactions of `batchSize` rows with a pause between them, so the
 * single SQLite writer is never held for long and ingest/digest keep flowing. Time is an argument.
 */
import type { RetentionConfig } from "../config";
import { dueAt, type LifecycleConfig, onTick } from "../core/issue-state/index";
import type { Logger } from "../log";
import type { BlobStore } from "../storage/blobs/blob-store";
import type { Db } from "../storage/db";
import { writeTx } from "../storage/dialect";
import {
  clearDetachedChunk,
  detachEventPartition,
  dropDetachedEventPartition,
  ensureEventPartitions,
  freezeOldEventPointers,
  listDetachedEventPartitions,
  listEventPartitions,
} from "../storage/events/partitions";
import {
  countProjectEvents,
  deleteExpiredChunk,
  deleteOldestOfIssue,
  type EventCursor,
  type IssueStored,
  listProjectsForRetention,
  storedEventsPerIssue,
} from "../storage/events/retention";
import { insertActivities } from "../storage/issues/activity";
import { lockIssues } from "../storage/issues/issue-locks";
import { clearDueAt, findDueIssues, writeIssueState } from "../storage/issues/lifecycle";
import { createTriageClaims } from "../storage/issues/triage-runs";
import { claimJobRun, type InstallationJob, type LockedRun, withJobLock } from "../storage/job-lock";
import { deleteUnusedBundles } from "../storage/releases/artifacts";
import { trimMonitorHistory } from "./monitor-retention";
import { expireReplays } from "./replays/replay-retention";
import { trimTraceData } from "./trace-retention";

const DAY = 24 * 3600 * 1000;

export interface RetentionOptions {
  /** epoch ms: "today" for the age cutoff */
  now: number;
  defaults: { days: number; eventCap: number; monitorDays?: number };
  /** rows per transaction */
  batchSize: number;
  /** awaited between transactions (default: a short timer pause); tests pass a no-op */
  yieldBetween?: () => Promise<void>;
  signal?: AbortSignal;
}

export interface RetentionResult {
  projects: number;
  /** deleted for age (row by row, and the rows of dropped partitions) */
  expired: number;
  /** PostgreSQL: weekly `events` partitions dropped whole (their rows are counted in `expired`) */
  partitionsDropped: number;
  /** deleted for the event cap */
  evicted: number;
  /** span and log rows deleted (same age and cap as events) */
  traceRows: number;
  /** cron check-ins and uptime results deleted (monitor history) */
  monitorRows: number;
}

/** A project's retention settings (`projects.settings` JSON), falling back to the defaults. */
export function projectRetention(
  settings: Record<string, unknown>,
  defaults: { days: number; eventCap: number },
): { days: number; eventCap: number } {
  const positive = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined);
  return {
    days: positive(settings.retentionDays) ?? defaults.days,
    eventCap: Math.floor(positive(settings.eventCap) ?? defaults.eventCap),
  };
}

const defaultYield = () => new Promise<void>((r) => setTimeout(r, 20));

export async function runRetention(db: Db, o: RetentionOptions): Promise<RetentionResult> {
  const result: RetentionResult = { projects: 0, expired: 0, partitionsDropped: 0, evicted: 0, traceRows: 0, monitorRows: 0 };
  const pause = o.yieldBetween ?? defaultYield;
  await ensureEventPartitions(db, o.now);
  const projects = await listProjectsForRetention(db);
  const dropped = await dropExpiredPartitions(db, oldestCutoff(projects, o), o, pause);
  result.partitionsDropped = dropped.partitions;
  result.expired += dropped.rows;
  for (const project of projects) {
    if (o.signal?.aborted) break;
    result.projects += 1;
    const { days, eventCap } = projectRetention(project.settings, o.defaults);
    result.expired += await expireProject(db, project.id, o.now - days * DAY, o, pause);
    result.evicted += await capProject(db, project.id, eventCap, o, pause);
    const trace = { projectId: project.id, cutoff: o.now - days * DAY, cap: eventCap, batchSize: o.batchSize, pause, signal: o.signal };
    result.traceRows += await trimTraceData(db, trace);
    const historyDays = Math.min(days, o.defaults.monitorDays ?? days);
    const history = { projectId: project.id, cutoff: o.now - historyDays * DAY, batchSize: o.batchSize, pause, signal: o.signal };
    result.monitorRows += await trimMonitorHistory(db, history);
  }
  return result;
}

/**
 * The age cutoff every project agrees on: the longest retention decides (without projects, the
 * default). A whole partition may go only when it ends before this.
 */
function oldestCutoff(projects: Array<{ settings: Record<string, unknown> }>, o: RetentionOptions): number {
  const days = projects.map((p) => projectRetention(p.settings, o.defaults).days);
  return o.now - Math.max(...days, projects.length === 0 ? o.defaults.days : 0) * DAY;
}

/**
 * PostgreSQL: detaches every weekly partition that ends before `cutoff` (its survivors move to
 * DEFAULT), then clears and drops every detached table, including one an interrupted run left.
 * Returns the partitions dropped and the rows that went with them.
 */
async function dropExpiredPartitions(
  db: Db,
  cutoff: number,
  o: RetentionOptions,
  pause: () => Promise<void>,
): Promise<{ partitions: number; rows: number }> {
  const out = { partitions: 0, rows: 0 };
  for (const p of await listEventPartitions(db)) {
    if (o.signal?.aborted) return out;
    if (p.to <= cutoff) await detachEventPartition(db, p.name);
  }
  for (const name of await listDetachedEventPartitions(db)) {
    const rows = await clearDetached(db, name, o, pause);
    if (rows === null) return out;
    out.rows += rows;
    if (await dropDetachedEventPartition(db, name)) out.partitions += 1;
  }
  return out;
}

/** Deletes the keys and attachments of a detached table's rows, a batch per transaction; null if aborted. */
async function clearDetached(db: Db, name: string, o: RetentionOptions, pause: () => Promise<void>): Promise<number | null> {
  let afterId: number | null = 0;
  let total = 0;
  while (afterId !== null) {
    if (o.signal?.aborted) return null;
    const from: number = afterId;
    const r = await writeTx(db, (tx) => clearDetachedChunk(tx, { name, afterId: from, limit: o.batchSize }));
    total += r.rows;
    afterId = r.cursor;
    if (afterId !== null) await pause();
  }
  return total;
}

async function expireProject(db: Db, projectId: number, cutoff: number, o: RetentionOptions, pause: () => Promise<void>): Promise<number> {
  let cursor: EventCursor | null = null;
  let total = 0;
  do {
    if (o.signal?.aborted) break;
    const from: EventCursor | null = cursor;
    const r: { deleted: number; cursor: EventCursor | null } = await writeTx(db, async (tx) => {
      // Survivors are chosen and the rest deleted in one transaction; an unmerge must not re-point
      // an issue in between (src/storage/events/partitions.ts).
      await freezeOldEventPointers(db, tx);
      return deleteExpiredChunk(tx, { projectId, cutoff, cursor: from, limit: o.batchSize });
    });
    total += r.deleted;
    cursor = r.cursor;
    if (cursor) await pause();
  } while (cursor);
  return total;
}

async function capProject(db: Db, projectId: number, cap: number, o: RetentionOptions, pause: () => Promise<void>): Promise<number> {
  const stored = await countProjectEvents(db, projectId);
  if (stored <= cap) return 0;
  const plan = planEviction(await storedEventsPerIssue(db, projectId), stored - cap);
  let total = 0;
  for (const step of plan) {
    let left = step.evict;
    while (left > 0 && !o.signal?.aborted) {
      const n = await writeTx(db, async (tx) => {
        await freezeOldEventPointers(db, tx);
        return deleteOldestOfIssue(tx, step.issueId, Math.min(left, o.batchSize));
      });
      total += n;
      left = n === 0 ? 0 : left - n;
      await pause();
    }
  }
  return total;
}

/**
 * How many events to evict from which issue so `excess` events go, most repeated issues first:
 * issues are cut down to a common level T (never below what they must keep), the largest first,
 * like water draining from the tallest columns. Pure; ordered most-repeated first.
 */
export function planEviction(issues: IssueStored[], excess: number): Array<{ issueId: number; evict: number }> {
  if (excess <= 0) return [];
  const cut = (i: IssueStored, level: number) => Math.max(0, i.stored - Math.max(level, i.kept));
  const f = (level: number) => issues.reduce((n, i) => n + cut(i, level), 0);
  const sorted = [...issues].sort((a, b) => b.stored - a.stored || a.issueId - b.issueId);
  const steps = (level: number) => sorted.map((i) => ({ issueId: i.issueId, evict: cut(i, level), stored: i.stored }));
  if (f(0) <= excess)
    return steps(0)
      .filter((s) => s.evict > 0)
      .map(({ issueId, evict }) => ({ issueId, evict }));
  // Largest level whose cut still removes enough: f is non-increasing in the level.
  let lo = 0;
  let hi = sorted[0]?.stored ?? 0;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (f(mid) >= excess) lo = mid;
    else hi = mid;
  }
  const plan = steps(lo);
  // The cut at `lo` may remove a few too many; the least repeated of the cut issues keep one more.
  let surplus = f(lo) - excess;
  for (let k = plan.length - 1; k >= 0 && surplus > 0; k--) {
    const s = plan[k] as { issueId: number; evict: number; stored: number };
    const issue = sorted[k] as IssueStored;
    if (s.evict > 0 && lo >= issue.kept) {
      s.evict -= 1;
      surplus -= 1;
    }
  }
  return plan.filter((s) => s.evict > 0).map(({ issueId, evict }) => ({ issueId, evict }));
}

// ---------------------------------------------------------------------------------------------
// Lifecycle sweep

export interface SweepOptions {
  now: number;
  lifecycle: LifecycleConfig;
  batchSize: number;
  yieldBetween?: () => Promise<void>;
  signal?: AbortSignal;
}

/** Applies every due time-based transition; returns how many issues changed. */
export async function runLifecycleSweep(db: Db, o: SweepOptions): Promise<number> {
  const pause = o.yieldBetween ?? defaultYield;
  let transitions = 0;
  while (!o.signal?.aborted) {
    const due = await findDueIssues(db, { now: o.now, newBefore: o.now - o.lifecycle.ongoingAfterMs, limit: o.batchSize });
    if (due.length === 0) break;
    const changed = await writeTx(db, async (tx) => {
      let n = 0;
      // The digest's lock order (src/storage/issues/issue-locks.ts): the issue rows by id first.
      const held = await lockIssues(
        tx,
        due.map((d) => d.id),
      );
      for (const d of due) {
        if (!held.has(d.id)) continue;
        const t = onTick(d.state, o.now, o.lifecycle);
        if (!t.changed) {
          // A stale due_at (should not happen: every state write sets it); reset it so we move on.
          const next = dueAt(d.state, o.lifecycle);
          await clearDueAt(tx, d.id, next !== null && next > o.now ? next : null);
          continue;
        }
        const expect = { status: d.state.status, substatus: d.state.substatus, statusChangedAt: d.state.statusChangedAt };
        if (!(await writeIssueState(tx, d.id, t.state, dueAt(t.state, o.lifecycle), expect))) continue;
        await insertActivities(tx, d.id, d.projectId, t.activities, o.now);
        n += 1;
      }
      return n;
    });
    transitions += changed;
    // Fewer than a batch, or nothing could be applied (changed concurrently): done for this run.
    if (due.length < o.batchSize || changed === 0) break;
    await pause();
  }
  return transitions;
}

// ---------------------------------------------------------------------------------------------
// The periodic loop

export interface MaintenanceOptions {
  db: Db;
  config: { retention: RetentionConfig; lifecycle: LifecycleConfig };
  /** session replays: their own retention (REPLAY_RETENTION_DAYS) and where their segments are */
  replays?: { days: number; blobs: BlobStore };
  log: Logger;
  signal: AbortSignal;
  now?: () => number;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Deletes artifact bundles unused since `before`, a few per transaction; returns how many. */
export async function expireBundles(db: Db, before: number, yieldBetween: () => Promise<void>, signal?: AbortSignal): Promise<number> {
  const step = 20;
  let total = 0;
  for (;;) {
    const n = await deleteUnusedBundles(db, before, step);
    total += n;
    if (n < step || signal?.aborted) return total;
    await yieldBetween();
  }
}

/**
 * Runs the lifecycle sweep every `sweepIntervalMs` and retention every `intervalMs`, the first
 * time `firstRunDelayMs` after start. Never throws: errors are logged and the next round retries.
 */
export async function runMaintenance(o: MaintenanceOptions): Promise<void> {
  const { db, log, signal } = o;
  const r = o.config.retention;
  const now = o.now ?? Date.now;
  const yieldBetween = () => sleep(r.pauseMs, signal);
  await sleep(r.firstRunDelayMs, signal);
  while (!signal.aborted) {
    // Scaled out, every worker process runs this loop: each job runs once per interval across
    // the installation, never twice at once (storage/job-lock.ts).
    try {
      const sweep = await runOncePerInterval(db, "lifecycle-sweep", now(), r.sweepIntervalMs, () =>
        runLifecycleSweep(db, { now: now(), lifecycle: o.config.lifecycle, batchSize: r.batchSize, yieldBetween, signal }),
      );
      if (sweep.ran && sweep.value > 0) log.info({ transitions: sweep.value }, "lifecycle sweep");
    } catch (err) {
      log.error({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, "lifecycle sweep failed");
    }
    await finishInterruptedTriage(db, now, log);
    if (!signal.aborted) {
      const started = now();
      try {
        const run = await runOncePerInterval(db, "retention", started, r.intervalMs, async () => {
          const res = await runRetention(db, {
            now: started,
            defaults: { days: r.days, eventCap: r.eventCap, monitorDays: r.monitorDays },
            batchSize: r.batchSize,
            yieldBetween,
            signal,
          });
          const bundles = r.artifactDays > 0 ? await expireBundles(db, started - r.artifactDays * DAY, yieldBetween, signal) : 0;
          const replays = o.replays
            ? await expireReplays(db, o.replays.blobs, {
                now: started,
                days: o.replays.days,
                batchSize: r.batchSize,
                pause: yieldBetween,
                signal,
              })
            : undefined;
          return { ...res, bundles, replays: replays?.replays ?? 0, replayOrphans: replays?.orphans ?? 0 };
        });
        if (run.ran) log.info({ ...run.value, ms: now() - started }, "retention run");
      } catch (err) {
        log.error({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, "retention run failed");
      }
    }
    await sleep(r.sweepIntervalMs, signal);
  }
}

/**
 * A merge or delete whose process died mid-way left claims that stopped being renewed; once they
 * expire, finish that work even if nobody triages those issues again (half-moved events would
 * otherwise stay counted on the issue they came from). Taking a run over is one transaction under
 * the issue locks, so two workers doing this at once finish each run once.
 */
export async function finishInterruptedTriage(db: Db, now: () => number, log: Logger): Promise<number> {
  try {
    return await createTriageClaims({ db, now, log }).finishAllStalled();
  } catch (err) {
    log.warn(
      { err: { name: (err as Error)?.name, message: (err as Error)?.message } },
      "finishing interrupted triage failed; retried next round",
    );
    return 0;
  }
}

/** Runs `fn` when this process holds the job's lock and the interval's run is still unclaimed. */
async function runOncePerInterval<T>(
  db: Db,
  job: InstallationJob,
  at: number,
  intervalMs: number,
  fn: () => Promise<T>,
): Promise<LockedRun<T>> {
  return withJobLock(db, job, async () => {
    if (!(await claimJobRun(db, job, at, intervalMs))) return { ran: false } as const;
    return { ran: true, value: await fn() } as const;
  }).then((outer) => (outer.ran ? outer.value : outer));
}
