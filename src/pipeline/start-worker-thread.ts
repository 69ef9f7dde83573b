/**
 * Starts the digest worker in worker_threads and returns one handle to wake and stop them all.
 * Up to `config.worker.threads` threads: the primary runs the digest loop and the periodic jobs
 * and is always there; helpers only digest, start when the primary reports a backlog and leave
 * when it is gone (claims are leased, and every lookup that decides an event's issue runs inside the
 * write transaction, so concurrent digesters are safe: they are on PostgreSQL across processes too).
 * Entry: `worker.mjs` next to this module when bundled (dist/), else the tsx bootstrap next to
 * the source file (dev, tests).
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Config } from "../config";
import type { Logger } from "../log";

/**
 * The digest allocates a parsed, a normalised and a scrubbed copy of every event: with a 4 MB
 * semi-space it scavenges and promotes so often that 16 MB semi-spaces take ~10 % off its CPU per
 * event (bench:digest, no flags: 595-601 against 665-724 µs with --max-semi-space-size=4). V8
 * grows the young generation only under allocation, so an idle thread keeps little of it.
 * A V8 flag wins over this limit: `--max-semi-space-size`, which `npm start` and the bin pass for
 * the main thread's RSS, applies to every isolate of the process, this thread's included
 * (--trace-gc: a scavenge every ~3 MB). So the limit holds only where Node runs without that flag
 * (tests, `node dist/cli.mjs` by hand). docs/scaling.md has the trade: about 90 MB idle RSS for
 * the CPU in bench:digest, and no faster drain in the product when only these threads get it.
 */
const DIGEST_YOUNG_GENERATION_MB = 48;

export interface WorkerThreadHandle {
  /** Ingest calls this after committing queue rows: the workers stop idling at once. */
  wake(): void;
  /** Asks the loops to finish their batch, close the database and exit; resolves when they have. */
  stop(): Promise<void>;
}

/** What a digest thread receives as workerData. */
export interface WorkerThreadData {
  config: Config;
  /** a helper: digests only, the primary thread runs the periodic jobs */
  digestOnly: boolean;
}

const STOP_TIMEOUT_MS = 15_000;
const RESTART_DELAY_MS = 1_000;

export function workerEntry(): URL {
  const bundled = new URL("./worker.mjs", import.meta.url);
  if (bundled.protocol === "file:" && fs.existsSync(fileURLToPath(bundled))) return bundled;
  return new URL("./worker-bootstrap.mjs", import.meta.url);
}

export interface WorkerThreadsHandle extends WorkerThreadHandle {
  /** Digest threads running now: the primary plus the helpers a backlog started. */
  running(): number;
}

export function startWorkerThread(config: Config, log: Logger): WorkerThreadsHandle {
  const maxHelpers = Math.max(1, config.worker.threads) - 1;
  const helpers = new Set<WorkerThreadHandle>();
  let stopping = false;
  const onBacklog = () => {
    // On demand: an idle server keeps one digest thread (and its memory); a backlog gets the rest.
    while (!stopping && helpers.size < maxHelpers) {
      const helper: WorkerThreadHandle = startOneThread({ config, digestOnly: true }, log.child({ helper: helpers.size + 1 }), {
        onExit: () => helpers.delete(helper),
      });
      helpers.add(helper);
    }
  };
  const primary = startOneThread({ config, digestOnly: false }, log, { onBacklog, restart: true });
  let wakeQueued = false;
  return {
    wake() {
      // Many ingest commits in one tick need one message per thread.
      if (wakeQueued) return;
      wakeQueued = true;
      queueMicrotask(() => {
        wakeQueued = false;
        primary.wake();
        for (const h of helpers) h.wake();
      });
    },
    async stop() {
      stopping = true;
      await Promise.all([primary.stop(), ...[...helpers].map((h) => h.stop())]);
    },
    running: () => 1 + helpers.size,
  };
}

interface ThreadHooks {
  /** the thread asked for helpers */
  onBacklog?: () => void;
  /** the thread is gone (stopped, left when idle, or crashed) */
  onExit?: () => void;
  /** a crash restarts it (the primary); a helper is simply gone, re-started on the next backlog */
  restart?: boolean;
}

function startOneThread(data: WorkerThreadData, log: Logger, hooks: ThreadHooks): WorkerThreadHandle {
  const entry = workerEntry();
  let worker: Worker;
  let stopping = false;
  let exited: Promise<void>;

  const spawn = (): void => {
    const w = new Worker(entry, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: DIGEST_YOUNG_GENERATION_MB } });
    worker = w;
    w.on("message", (msg: unknown) => {
      if (msg === "backlog") hooks.onBacklog?.();
    });
    w.on("error", (err) => log.error({ err: { name: err.name, message: err.message } }, "digest worker thread failed"));
    exited = new Promise<void>((resolve) => {
      w.once("exit", (code) => {
        resolve();
        if (stopping) return hooks.onExit?.();
        if (!hooks.restart) {
          // A helper leaves with 0 once the backlog is gone.
          if (code !== 0) log.error({ code }, "digest helper thread exited");
          return hooks.onExit?.();
        }
        // The primary loop never ends on its own; an exit is a crash (e.g. failed to open the database).
        log.error({ code }, "digest worker thread exited; restarting");
        setTimeout(() => {
          if (!stopping) spawn();
        }, RESTART_DELAY_MS).unref();
      });
    });
  };
  spawn();

  return {
    wake() {
      if (!stopping) worker.postMessage("wake");
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      const w = worker;
      const gone = exited;
      w.postMessage("stop");
      const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), STOP_TIMEOUT_MS).unref());
      if ((await Promise.race([gone, timeout])) === "timeout") {
        log.warn("digest worker did not stop in time; terminating");
        await w.terminate();
      }
    },
  };
}
