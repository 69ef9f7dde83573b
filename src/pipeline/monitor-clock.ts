/**
 * The monitors' clock. Production: the wall clock. Tests: the epoch ms written in the file named
 * by ERRATA_TEST_CLOCK_FILE (config `monitors.testClockFile`), read on every call, so a test moves
 * time for the digest worker and the evaluator — in another thread and across restarts — without
 * sleeping. One clock per thread (module state), set when the worker starts.
 */
import fs from "node:fs";

let clockFile: string | undefined;

export function configureMonitorClock(file: string | undefined): void {
  clockFile = file || undefined;
}

/** True when a test clock is in use (check-ins then take its time instead of their receive time). */
export function monitorClockIsFake(): boolean {
  return clockFile !== undefined;
}

export function monitorNow(): number {
  if (!clockFile) return Date.now();
  try {
    const v = Number(fs.readFileSync(clockFile, "utf8").trim());
    return Number.isFinite(v) && v > 0 ? v : Date.now();
  } catch {
    return Date.now();
  }
}

/** A check-in's time: its receive time, or the test clock's now. */
export function checkInTime(receivedAt: number): number {
  return clockFile ? monitorNow() : receivedAt;
}
