/**
 * Runs unpack-bundle.ts on a thread of its own (bundle-thread.ts) and resolves with its result, so
 * assembling a bundle never blocks the event loop that serves requests and /readyz. At most
 * MAX_THREADS assemblies unpack at once; the rest wait their turn (the CLIs wait on the answer).
 * Entry: `bundle-thread.mjs` next to this module when bundled (dist/), else the tsx bootstrap next
 * to the source file (dev, tests).
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { UnpackRequest, UnpackResult } from "./unpack-bundle";

// Two cores are the smallest host we support: one unpacking thread each at most, the event loop
// keeps its share through the OS scheduler.
const MAX_THREADS = 2;
let running = 0;
const waiting: Array<() => void> = [];

function entry(): URL {
  const bundled = new URL("./bundle-thread.mjs", import.meta.url);
  if (bundled.protocol === "file:" && fs.existsSync(fileURLToPath(bundled))) return bundled;
  return new URL("./bundle-thread-bootstrap.mjs", import.meta.url);
}

async function turn(): Promise<void> {
  if (running < MAX_THREADS) {
    running++;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function release(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

export async function unpackOffThread(req: UnpackRequest): Promise<UnpackResult> {
  await turn();
  try {
    return await new Promise<UnpackResult>((resolve, reject) => {
      const worker = new Worker(entry(), { workerData: req });
      let settled = false;
      worker.once("message", (result: UnpackResult) => {
        settled = true;
        resolve(result);
      });
      worker.once("error", (err) => {
        settled = true;
        reject(err);
      });
      worker.once("exit", (code) => {
        if (!settled) reject(new Error(`The bundle assembly thread exited with code ${code} before answering.`));
      });
    });
  } finally {
    release();
  }
}
