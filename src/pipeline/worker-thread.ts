/**
 * `worker_threads` entry of the digest worker. Receives the `Config` (and whether it is a helper
 * that only digests) as workerData, opens its own database connection, runs the loop; "wake"
 * messages cut the idle sleep short; "stop" ends the loop (the primary first digests what is
 * queued, up to STOP_DRAIN_MS), closes the database and lets the thread exit.
 * Bundled to dist/worker.mjs in production; started through worker-bootstrap.mjs under tsx/vitest.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createLogger } from "../log";
import { openDb } from "../storage/db";
import { niceThisThread } from "../thread-priority";
import type { WorkerThreadData } from "./start-worker-thread";
import { runWorker, Waker } from "./worker";

/** A helper thread without work this long exits, giving its memory back (~40–90 MB under load). */
const HELPER_IDLE_EXIT_MS = 5_000;
/** Stopping: at most this long digesting the queue's rest (the thread starter waits 15 s in all). */
const STOP_DRAIN_MS = 10_000;

async function main(): Promise<void> {
  if (!parentPort) throw new Error("worker-thread.ts must run in a worker thread");
  const port = parentPort;
  const { config, digestOnly } = workerData as WorkerThreadData;
  const log = createLogger(config.logLevel).child({ mod: "digest", ...(digestOnly ? { helper: true } : {}) });
  const nice = niceThisThread(config.worker.nice);
  if (nice !== undefined) log.debug({ nice }, "digest thread priority lowered");
  const db = openDb(config.database, { poolSize: 2, cacheKiB: 8_000 });
  const controller = new AbortController();
  const waker = new Waker();
  port.on("message", (msg: unknown) => {
    if (msg === "wake") waker.wake();
    else if (msg === "stop") controller.abort();
  });
  try {
    await runWorker({
      db,
      config,
      log,
      signal: controller.signal,
      waker,
      ingestWakes: config.roles.includes("ingest"),
      digestOnly,
      // The primary asks for helpers at most once a second; helpers leave when the backlog is gone.
      onBacklog: digestOnly ? undefined : throttle(() => port.postMessage("backlog"), 1000),
      idleExitMs: digestOnly ? HELPER_IDLE_EXIT_MS : undefined,
      // A graceful stop digests what ingest acknowledged (the primary only; helpers just leave).
      drainOnStopMs: digestOnly ? undefined : STOP_DRAIN_MS,
    });
  } finally {
    await db.close().catch((err: unknown) => log.error({ err: (err as Error)?.message }, "closing the database failed"));
    port.postMessage("stopped");
    // The message listener would keep the thread alive.
    port.close();
  }
}

/** `fn` at most once per `ms`. */
function throttle(fn: () => void, ms: number): () => void {
  let last = 0;
  return () => {
    const t = Date.now();
    if (t - last < ms) return;
    last = t;
    fn();
  };
}

await main();
