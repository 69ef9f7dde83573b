import os from "node:os";
import { Worker } from "node:worker_threads";
import { describe, expect, test } from "vitest";
import { currentThreadId } from "./thread-priority";

describe.skipIf(process.platform !== "linux")("thread priority", () => {
  test("the main thread's task id is the process id", () => {
    expect(currentThreadId()).toBe(process.pid);
  });

  test("a worker thread lowers its own priority, not the process's", async () => {
    // Node 20 cannot start a .ts worker directly: register tsx inside the thread, then load the module.
    const moduleUrl = new URL("./thread-priority.ts", import.meta.url).href;
    const tsxApi = import.meta.resolve("tsx/esm/api");
    const src = `
      import { register } from ${JSON.stringify(tsxApi)};
      import { parentPort } from "node:worker_threads";
      register();
      const { currentThreadId, niceThisThread } = await import(${JSON.stringify(moduleUrl)});
      parentPort.postMessage({ tid: currentThreadId(), nice: niceThisThread(7) });`;
    const before = os.getPriority(process.pid);
    const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(src)}`));
    const got = await new Promise<{ tid: number; nice: number }>((resolve, reject) => {
      w.once("message", resolve);
      w.once("error", reject);
    });
    await w.terminate();
    expect(got.tid).not.toBe(process.pid);
    expect(got.nice).toBe(Math.max(7, before));
    expect(os.getPriority(process.pid)).toBe(before);
  });
});
