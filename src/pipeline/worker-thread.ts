/**
 * `worker_threads` entry of the digest worker. Receives the `Config` as workerData, opens its own
 * database connection, runs the loop; "wake" messages cut the idle sleep short; "stop" ends the
 * loop, closes the database and lets the thread exit.
 * Bundled to dist/worker.mjs in production; started through worker-bootstrap.mjs under tsx/vitest.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Config } from "../config";
import { createLogger } from "../log";
import { openDb } from "../storage/db";
import { niceThisThread } from "./thread-priority";
import { runWorker, Waker } from "./worker";

async function main(): Promise<void> {
  if (!parentPort) throw new Error("worker-thread.ts must run in a worker thread");
  const port = parentPort;
  const config = workerData as Config;
  const log = createLogger(config.logLevel).child({ mod: "digest" });
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
    await runWorker({ db, config, log, signal: controller.signal, waker, ingestWakes: config.roles.includes("ingest") });
  } finally {
    await db.close().catch((err: unknown) => log.error({ err: (err as Error)?.message }, "closing the database failed"));
    port.postMessage("stopped");
    // The message listener would keep the thread alive.
    port.close();
  }
}

await main();
