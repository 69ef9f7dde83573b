/**
 * Outcomes decided by ingest itself — requests refused after authentication (invalid,
 * rate_limited, filtered) and item types it cuts out (filtered(unsupported_item)) — are counted
 * in memory and written in batches: with the next group commit where the queue shares the main
 * database (PostgreSQL: same transaction as the queue rows), else (and when nothing is being
 * queued) by a timer. Items that reach the queue get their
 * outcome from the digest worker instead, so each item is counted exactly once.
 * A crash loses at most the last `flushMs` of ingest-side counts, never an acknowledged item.
 */
import { type OutcomeCount, type OutcomeName, OutcomeTally } from "../core/outcomes";
import { countOutcomeMetrics } from "../metrics";

export interface IngestOutcomes {
  add(projectId: number, keyId: number, at: number, category: string, outcome: OutcomeName, reason?: string, quantity?: number): void;
  /** The counts to write with a commit (the buffer empties). */
  take(): OutcomeCount[];
  /** After that commit: on /metrics. */
  committed(counts: readonly OutcomeCount[]): void;
  /** The commit failed: keep them for the next one. */
  restore(counts: readonly OutcomeCount[]): void;
  /** Writes what is pending now (close). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createIngestOutcomes(write: (counts: OutcomeCount[]) => Promise<void>, flushMs: number): IngestOutcomes {
  const tally = new OutcomeTally();
  let writing: Promise<void> | undefined;

  async function flush(): Promise<void> {
    if (writing) await writing;
    if (tally.size === 0) return;
    const counts = tally.drain();
    writing = write(counts).then(
      () => countOutcomeMetrics(counts),
      () => tally.addAll(counts),
    );
    try {
      await writing;
    } finally {
      writing = undefined;
    }
  }

  const timer = setInterval(
    () => {
      if (tally.size > 0) void flush();
    },
    Math.max(50, flushMs),
  );
  timer.unref();

  return {
    add(projectId, keyId, at, category, outcome, reason = "", quantity = 1) {
      tally.add(projectId, keyId, at, category, outcome, reason, quantity);
    },
    take: () => (tally.size === 0 ? [] : tally.drain()),
    committed: (counts) => countOutcomeMetrics(counts),
    restore: (counts) => tally.addAll(counts),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
