/**
 * Retention for spans and logs: the same age as the project's events, and at most as many of
 * each as the project may keep events. Short transactions with a pause between, like event retention.
 */
import type { Db } from "../storage/db";
import { writeTx } from "../storage/dialect";
import { deleteTraceRowsBefore, type TraceTable, traceCapCutoff } from "../storage/events/traces";

const TABLES: TraceTable[] = ["spans", "log_records", "trace_metrics"];

export interface TraceRetention {
  projectId: number;
  /** rows received before this (epoch ms) are deleted */
  cutoff: number;
  /** rows kept per table at most */
  cap: number;
  batchSize: number;
  pause: () => Promise<void>;
  signal?: AbortSignal;
}

/** Returns how many span and log rows were deleted. */
export async function trimTraceData(db: Db, o: TraceRetention): Promise<number> {
  let total = 0;
  for (const table of TABLES) {
    const capCutoff = await traceCapCutoff(db, table, o.projectId, o.cap);
    const cutoff = Math.max(o.cutoff, capCutoff ?? 0);
    for (;;) {
      if (o.signal?.aborted) return total;
      const n = await writeTx(db, (tx) => deleteTraceRowsBefore(tx, table, o.projectId, cutoff, o.batchSize));
      total += n;
      if (n < o.batchSize) break;
      await o.pause();
    }
  }
  return total;
}
