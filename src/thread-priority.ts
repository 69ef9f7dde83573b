/**
 * Lowers the scheduling priority of the calling thread alone. On Linux a thread is a task with its
 * own id and `setpriority(PRIO_PROCESS, tid)` applies to that task only, so the digest thread can
 * yield the CPU to ingest (the main thread) under contention while using all idle CPU otherwise.
 * Elsewhere (no /proc/thread-self) it does nothing: a whole-process nice would slow ingest too.
 */
import fs from "node:fs";
import os from "node:os";

/** The kernel task id of the calling thread, or undefined off Linux. */
export function currentThreadId(): number | undefined {
  try {
    // "<pid>/task/<tid>"
    const link = fs.readlinkSync("/proc/thread-self");
    const tid = Number(link.slice(link.lastIndexOf("/") + 1));
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Sets this thread's niceness (0–19); returns what it now is, or undefined when it could not. */
export function niceThisThread(nice: number): number | undefined {
  const tid = currentThreadId();
  if (tid === undefined || nice <= 0) return undefined;
  try {
    os.setPriority(tid, nice);
    return os.getPriority(tid);
  } catch {
    return undefined;
  }
}
