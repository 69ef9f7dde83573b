/**
 * The digest loop: claim a batch, digest it, repeat while there is work; sleep when idle (or until
 * woken); never die on an error (log, back off, continue).
 *
 * Pacing: better-sqlite3 is synchronous and SQLite has one writer. A worker that commits batch
 * after batch without pause keeps the write lock nearly all the time and the main thread (ingest,
 * UI) waits on its busy timeout. After each batch the loop pauses for a fraction of the time the
 * batch took, so other writers always get a window — but only while ingest is writing (it wakes
 * the worker after each commit): draining a backlog alone, the worker does not pause.
 */
import type { Config } from "../config";
import type { Logger } from "../log";
import { trimNativeHeap } from "../native-heap";
import { createBlobStore } from "../storage/blobs/blob-store";
import type { Db } from "../storage/db";
import { claimBatch } from "../storage/queue/queue";
import { runDeliveryLoop } from "./alerts/delivery-loop";
import { collectGarbage } from "./collect-garbage";
import { type DigestResult, digestBatch, sha256Hex } from "./digest-batch";
import { configureMonitorClock, monitorNow } from "./monitor-clock";
import { runMonitorEvaluator } from "./monitor-evaluator";
import { createSourcemapPipeline } from "./resymbolicate";
import { runMaintenance } from "./retention";
import { runBackupLoop } from "./scheduled-backup";
import { runUptimeLoop } from "./uptime-checker";
import { runWeeklySummaryJob } from "./weekly-summary";

/** Lets ingest cut the idle sleep short when it has just committed new rows. */
export class Waker {
  private pending = false;
  private resolve: (() => void) | undefined;
  /** wake() calls since the last takeActivity(): ingest committed meanwhile */
  private activity = 0;

  wake(): void {
    this.activity += 1;
    if (this.resolve) {
      const r = this.resolve;
      this.resolve = undefined;
      r();
    } else {
      this.pending = true;
    }
  }

  /** Whether ingest committed since the last call (then the worker leaves it a window). */
  takeActivity(): boolean {
    const active = this.activity > 0;
    this.activity = 0;
    return active;
  }

  /** Resolves after `ms`, on `wake()`, or when the signal aborts — whichever comes first. */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (this.pending || signal.aborted) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.resolve = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      this.resolve = done;
    });
  }
}

export interface WorkerOptions {
  db: Db;
  /** with `retention` and `lifecycle`, the maintenance jobs (retention, lifecycle sweep) run alongside */
  config: Pick<Config, "worker" | "limits"> &
    Partial<
      Pick<
        Config,
        | "retention"
        | "lifecycle"
        | "sourcemaps"
        | "alerts"
        | "smtp"
        | "publicUrl"
        | "monitors"
        | "uptime"
        | "replays"
        | "dataDir"
        | "backup"
        | "database"
      >
    >;
  log: Logger;
  signal: AbortSignal;
  waker?: Waker;
  /**
   * Ingest runs in this process and calls `waker.wake()` after every commit: the worker then
   * paces only while ingest is active. Otherwise it always paces.
   */
  ingestWakes?: boolean;
  /** pause after a batch = its write transaction's duration × this ratio (SQLite); default 0.5 */
  paceRatio?: number;
  /** clock, for tests */
  now?: () => number;
  /** called after every digested batch (metrics, tests) */
  onBatch?: (r: DigestResult) => void;
  /**
   * A helper thread: digests the queue and nothing else. The periodic jobs (retention, alert
   * delivery, monitors, uptime, late source maps) run in the primary thread only.
   */
  digestOnly?: boolean;
  /**
   * Called when two claims in a row came back full (a backlog: the queue holds more than the
   * primary takes at once) while ingest in this process is quiet; the thread starter answers with
   * helper threads.
   */
  onBacklog?: () => void;
  /** A helper stops (the promise resolves) after this long without work; undefined = never. */
  idleExitMs?: number;
  /**
   * When the signal aborts (the server is stopping), keep digesting what the queue holds for at
   * most this long before returning, so a graceful stop leaves nothing acknowledged undigested;
   * what is left after it stays queued for the next start. Undefined = return at once.
   */
  drainOnStopMs?: number;
}

const MAX_BACKOFF_MS = 30_000;
/** A helper's pause while ingest in this process is committing (then only the primary digests). */
const HELPER_YIELD_MS = 50;
/** At most one malloc trim per this long from a digest thread (a trickle ends a "burst" per event). */
const TRIM_GAP_MS = 60_000;

/**
 * SQLite: how long one digest transaction should hold the main file's write lock. Ingest no longer
 * waits for it (its queue has a file of its own), but the web UI's writes and the other digest
 * threads do. Measured when ingest shared the lock: 200 events per transaction held it ~60 ms,
 * ~50 events ~15 ms, at the same digest throughput; 80 ms instead of 20 did not speed up the
 * digest end to end (docs/scaling.md, 26 Nov third session).
 */
const TARGET_LOCK_MS = 20;
/** Fewer events per transaction than this and the per-batch statements start to dominate. */
const MIN_CLAIM = 10;

/**
 * The next claim size (SQLite): as many items as fit in TARGET_LOCK_MS at the last batch's lock
 * time per item, never more than the configured batch size; moves halfway to smooth out noise.
 */
export function nextClaimSize(current: number, items: number, lockMs: number, batchSize: number): number {
  const floor = Math.min(MIN_CLAIM, batchSize);
  if (items <= 0 || !(lockMs > 0)) return current;
  const fit = Math.floor(TARGET_LOCK_MS / (lockMs / items));
  return Math.max(floor, Math.min(batchSize, Math.round((current + fit) / 2)));
}

/**
 * Body bytes one claim should bring into a digest thread. A batch is live all at once (the bodies,
 * their parsed, normalised and compressed copies, several times the body size), in each digest
 * thread: 200 queued 46 KB envelopes are ~9 MB of bodies and ~40 MB of heap per thread. Capping
 * the bytes keeps the 50 KB payload's batches near the 5 KB payload's footprint.
 */
export const CLAIM_BYTES = 2 * 1024 * 1024;

/**
 * The claim size capped by bytes, from the last batch's mean body size (claims carry no sizes
 * before they are read); never below one item, never above `wanted`.
 */
export function claimForBytes(wanted: number, lastItems: number, lastBytes: number, budget = CLAIM_BYTES): number {
  if (lastItems <= 0 || lastBytes <= 0) return wanted;
  return Math.max(1, Math.min(wanted, Math.floor(budget / (lastBytes / lastItems))));
}

export async function runWorker(opts: WorkerOptions): Promise<void> {
  const { db, config, log, signal } = opts;
  const waker = opts.waker ?? new Waker();
  const now = opts.now ?? Date.now;
  const paceRatio = opts.paceRatio ?? 0.5;
  let backoff = 0;
  let claimSize = config.worker.batchSize;
  /** the last batch's item count and body bytes, for claimForBytes */
  let lastItems = 0;
  let lastBytes = 0;
  // Starting counts as a burst: the first empty claim collects the start's garbage (module loading,
  // migrations) and trims, as after any burst. The trim is process-wide: measured 28 Nov, idle RSS
  // after start 136-139 MB instead of 149-153 MB.
  let busy = true;
  let lastTrim = Number.NEGATIVE_INFINITY;
  /** when this thread last claimed work (a helper leaves after idleExitMs without any) */
  let lastWork = now();
  let fullClaims = 0;
  const idleTooLong = () => opts.idleExitMs !== undefined && now() - lastWork >= opts.idleExitMs;
  log.info({ batchSize: config.worker.batchSize, digestOnly: opts.digestOnly === true }, "digest worker started");
  // Source maps: applied at digest time; maps that arrive late re-symbolicate recent events.
  const sourcemaps = createSourcemapPipeline(db, log, config.sourcemaps, now);
  const { lifecycle } = config;
  const primary = opts.digestOnly !== true;
  const jobs = primary ? startPeriodicJobs(opts) : undefined;
  // Session replays: segments go to the blob store (files beside SQLite, the blobs table on PostgreSQL).
  const replays = config.replays && config.dataDir ? { blobs: createBlobStore(db, config.dataDir), config: config.replays } : undefined;
  const digestOptions = () => ({
    now: now(),
    limits: config.limits,
    log,
    hash: sha256Hex,
    lifecycle,
    symbolicate: sourcemaps.symbolicate,
    nextjsHold: config.alerts?.nextjsHold,
    replays,
  });
  while (!signal.aborted) {
    try {
      // Late source maps: one thread looks for due jobs (a job is claimed, so two would be safe too).
      if (primary) await sourcemaps.tick();
      // A helper leaves the CPU and the write lock to ingest while requests are coming in (ingest
      // first; the primary alone catches up meanwhile, as without helpers), and drains the backlog
      // with the primary once they stop. Waiting counts as idle: it may leave meanwhile.
      if (!primary && opts.ingestWakes && waker.takeActivity()) {
        if (idleTooLong()) break;
        await pause(HELPER_YIELD_MS, signal);
        continue;
      }
      const wanted = claimForBytes(claimSize, lastItems, lastBytes);
      const items = await claimBatch(db, now(), wanted, config.worker.leaseMs);
      if (items.length === 0) {
        // Idle after a burst: hand SQLite's page cache and the garbage of the burst back, so a
        // quiet server stays small.
        if (busy) {
          db.sqlite?.pragma("shrink_memory");
          db.queueDb?.sqlite?.pragma("shrink_memory");
          collectGarbage();
          // Process-wide: also a worker-role process, which no ingest commit wakes, gives it back.
          if (performance.now() - lastTrim >= TRIM_GAP_MS) {
            lastTrim = performance.now();
            trimNativeHeap();
          }
        }
        busy = false;
        if (idleTooLong()) break;
        await waker.sleep(config.worker.idlePollMs, signal);
        continue;
      }
      busy = true;
      lastWork = now();
      lastItems = items.length;
      lastBytes = items.reduce((n, item) => n + item.body.length, 0);
      // Two full claims in a row: the queue holds more than the primary takes at once.
      fullClaims = items.length >= wanted ? fullClaims + 1 : 0;
      const started = performance.now();
      // Parsing, grouping and compression run before the write transaction, without the lock:
      // only the time the lock was held needs a matching window for other writers. The fallback
      // path (item by item) does not report; then the whole batch counts, as before.
      let lockMs: number | undefined;
      const onWriteTx = (ms: number) => {
        lockMs = ms;
      };
      // A full claim means a backlog: replay-only rows then wait a moment behind the errors.
      const result = await digestBatch(db, items, { ...digestOptions(), onWriteTx, deferReplays: items.length >= wanted });
      const took = performance.now() - started;
      backoff = 0;
      opts.onBatch?.(result);
      log.debug({ ...result, ms: Math.round(took), lockMs: lockMs === undefined ? undefined : Math.round(lockMs) }, "digest batch");
      if (db.dialect === "sqlite" && lockMs !== undefined)
        claimSize = nextClaimSize(claimSize, items.length, lockMs, config.worker.batchSize);
      // Ingest in another process never wakes this worker: then it always paces.
      const ingestActive = !opts.ingestWakes || waker.takeActivity();
      // Helpers for a backlog, unless ingest in this process is busy (they would only wait for it).
      if (fullClaims >= 2 && !(opts.ingestWakes && ingestActive)) opts.onBacklog?.();
      await pause(db.dialect === "sqlite" && ingestActive ? Math.max(1, (lockMs ?? took) * paceRatio) : 0, signal);
    } catch (err) {
      backoff = Math.min(MAX_BACKOFF_MS, backoff === 0 ? 100 : backoff * 2);
      log.error(
        { err: { name: (err as Error)?.name, message: (err as Error)?.message }, backoffMs: backoff },
        "digest worker error; backing off",
      );
      await pause(backoff, signal);
    }
  }
  if (opts.drainOnStopMs !== undefined) await drainQueue(opts, opts.drainOnStopMs, digestOptions);
  await jobs;
  log.info("digest worker stopped");
}

/** Stopping: digest the queue's remaining rows until it is empty or `budgetMs` has passed. */
async function drainQueue(opts: WorkerOptions, budgetMs: number, digestOptions: () => Parameters<typeof digestBatch>[2]): Promise<void> {
  const { db, config, log } = opts;
  const now = opts.now ?? Date.now;
  const deadline = performance.now() + budgetMs;
  let digested = 0;
  try {
    while (performance.now() < deadline) {
      const items = await claimBatch(db, now(), config.worker.batchSize, config.worker.leaseMs);
      if (items.length === 0) {
        if (digested > 0) log.info({ items: digested }, "queue drained before stopping");
        return;
      }
      await digestBatch(db, items, digestOptions());
      digested += items.length;
    }
    log.warn({ items: digested }, "stopping with items still queued; they are digested at the next start");
  } catch (err) {
    // Nothing is lost: claimed rows come back when their lease ends.
    log.error({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, "draining the queue before stopping failed");
  }
}

/** The jobs that run once per worker process, beside the digest loop; resolves when all have stopped. */
async function startPeriodicJobs(opts: WorkerOptions): Promise<void> {
  const { db, config, log, signal } = opts;
  const now = opts.now ?? Date.now;
  const { retention, lifecycle } = config;
  const replays =
    config.replays && config.dataDir ? { days: config.replays.retentionDays, blobs: createBlobStore(db, config.dataDir) } : undefined;
  const maintenance =
    retention && lifecycle ? runMaintenance({ db, config: { retention, lifecycle }, replays, log, signal, now }) : undefined;
  // Alert delivery (issue 11): the outbox the digest fills, sent alongside it.
  const { alerts, smtp, publicUrl } = config;
  const delivery =
    alerts && publicUrl ? runDeliveryLoop({ db, config: { alerts, smtp: smtp ?? null, publicUrl }, log, signal }) : undefined;
  const monitors = startMonitors(db, config.monitors, log, signal, lifecycle);
  const uptime = config.uptime
    ? runUptimeLoop({
        db,
        policy: {
          allowPrivate: config.uptime.allowPrivate,
          allowHosts: config.uptime.allowHosts,
          settings: { allowPrivate: "UPTIME_ALLOW_PRIVATE", allowHosts: "UPTIME_ALLOW_HOSTS" },
        },
        now: monitorNow,
        publicUrl: config.publicUrl ?? "",
        log: log.child({ job: "uptime" }),
        tickMs: config.uptime.tickMs,
        signal,
      })
    : undefined;
  // The weekly summary email (issue 30): looked at hourly, each week's mails sent once.
  // First look after the same delay as the maintenance jobs: a starting server serves first.
  const firstDelayMs = retention?.firstRunDelayMs ?? 30_000;
  const summaries = smtp && publicUrl ? runWeeklySummaryLoop({ db, smtp, publicUrl, log, now, signal, firstDelayMs }) : undefined;
  // Scheduled backups (issue 43): BACKUP_DIR set; once per BACKUP_EVERY across the installation.
  const { backup, database, dataDir } = config;
  const backups =
    backup?.dir && database && dataDir
      ? runBackupLoop({ db, config: { backup, database, dataDir }, log: log.child({ job: "backup" }), signal, now, firstDelayMs })
      : undefined;
  await Promise.all([maintenance, delivery, monitors, uptime, summaries, backups]);
}

async function runWeeklySummaryLoop(o: {
  db: WorkerOptions["db"];
  smtp: NonNullable<WorkerOptions["config"]["smtp"]>;
  publicUrl: string;
  log: WorkerOptions["log"];
  now: () => number;
  signal: AbortSignal;
  firstDelayMs: number;
}): Promise<void> {
  await abortableSleep(o.firstDelayMs, o.signal);
  while (!o.signal.aborted) {
    try {
      const run = await runWeeklySummaryJob({ db: o.db, smtp: o.smtp, publicUrl: o.publicUrl, log: o.log, now: o.now() });
      if (run && run.sent + run.failed > 0) o.log.info({ ...run }, "weekly summary");
    } catch (err) {
      o.log.error({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, "weekly summary failed");
    }
    await abortableSleep(3_600_000, o.signal);
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Cron monitors' evaluator (and the test clock check-ins use), when the worker is configured for them. */
function startMonitors(
  db: Db,
  cfg: Config["monitors"] | undefined,
  log: Logger,
  signal: AbortSignal,
  lifecycle: Config["lifecycle"] | undefined,
): Promise<void> | undefined {
  if (!cfg) return undefined;
  configureMonitorClock(cfg.testClockFile);
  return runMonitorEvaluator({ db, tickMs: cfg.tickMs, log: log.child({ job: "monitors" }), signal, lifecycle });
}

/** setTimeout-based pause (0 → one macrotask: lets queued I/O and messages run). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
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
