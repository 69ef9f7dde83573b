/**
 * Monitor history under retention: cron check-ins and uptime results older than the cutoff go, a
 * batch per transaction with a pause between (SQLite has one writer). Monitors themselves, their
 * per-environment state and their issues stay: the state never depends on deleted history.
 */
import type { Db } from "../storage/db";
import { type Tx, writeTx } from "../storage/dialect";
import { deleteCheckinsBefore, listMonitors } from "../storage/monitors/monitors";
import { deleteUptimeResultsBefore, listUptimeMonitors } from "../storage/monitors/uptime";

export interface MonitorHistoryRetention {
  projectId: number;
  cutoff: number;
  batchSize: number;
  pause: () => Promise<void>;
  signal?: AbortSignal;
}

/** Deletes a project's monitor history older than the cutoff; returns how many rows went. */
export async function trimMonitorHistory(db: Db, o: MonitorHistoryRetention): Promise<number> {
  const cron = (await listMonitors(db, [o.projectId])).map(
    (m) => (tx: Tx, limit: number) => deleteCheckinsBefore(tx, m.id, o.cutoff, limit),
  );
  const uptime = (await listUptimeMonitors(db, [o.projectId])).map(
    (m) => (tx: Tx, limit: number) => deleteUptimeResultsBefore(tx, m.id, o.cutoff, limit),
  );
  let total = 0;
  for (const step of [...cron, ...uptime]) {
    for (;;) {
      if (o.signal?.aborted) return total;
      const n = await writeTx(db, (tx) => step(tx, o.batchSize));
      total += n;
      if (n < o.batchSize) break;
      await o.pause();
    }
  }
  return total;
}
