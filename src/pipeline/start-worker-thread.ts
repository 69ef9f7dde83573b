/**
 * Starts the digest worker in a worker_thread and returns a handle to wake and stop it.
 * Entry: `worker.mjs` next to this module when bundled (dist/), else the tsx bootstrap next to
 * the source file (dev, tests).
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Config } from "../config";
import type { Logger } from "../log";

export interface WorkerThreadHandle {
  /** Ingest calls this after committing queue rows: the worker stops idling at once. */
  wake(): void;
  /** Asks the loop to finish its batch, close the database and exit; resolves when it has. */
  stop(): Promise<void>;
}

const STOP_TIMEOUT_MS = 15_000;
const RESTART_DELAY_MS = 1_000;

export function workerEntry(): URL {
  const bundled = new URL("./worker.mjs", import.meta.url);
  if (bundled.protocol === "file:" && fs.existsSync(fileURLToPath(bundled))) return bundled;
  return new URL("./worker-bootstrap.mjs", import.meta.url);
}

export function startWorkerThread(config: Config, log: Logger): WorkerThreadHandle {
  const entry = workerEntry();
  let worker: Worker;
  let stopping = false;
  let wakeQueued = false;

  const spawn = (): void => {
    worker = new Worker(entry, { workerData: config });
    worker.on("error", (err) => log.error({ err: { name: err.name, message: err.message } }, "digest worker thread failed"));
    worker.on("exit", (code) => {
      if (stopping) return;
      // The loop never ends on its own; an exit is a crash (e.g. failed to open the database).
      log.error({ code }, "digest worker thread exited; restarting");
      setTimeout(() => {
        if (!stopping) spawn();
      }, RESTART_DELAY_MS).unref();
    });
  };
  spawn();

  return {
    wake() {
      // Many ingest commits in one tick need one message.
      if (stopping || wakeQueued) return;
      wakeQueued = true;
      queueMicrotask(() => {
        wakeQueued = false;
        worker.postMessage("wake");
      });
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      const w = worker;
      const exited = new Promise<void>((resolve) => w.once("exit", () => resolve()));
      w.postMessage("stop");
      const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), STOP_TIMEOUT_MS).unref());
      if ((await Promise.race([exited, timeout])) === "timeout") {
        log.warn("digest worker did not stop in time; terminating");
        await w.terminate();
      }
    },
  };
}
