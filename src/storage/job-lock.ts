/**
 * Periodic jobs that run once per installation, not once per process.
 *
 * Scaled out on PostgreSQL, every worker process runs the same maintenance loop. Two guards make
 * the work happen once:
 * - `withJobLock`: a session advisory lock held on one reserved connection for the length of the
 *   run, so two processes never run the same job at the same time. If the process dies, its
 *   connection closes and PostgreSQL releases the lock.
 * - `claimJobRun`: a compare-and-set on the job's last start time (in `installation`), so the
 *   job runs once per interval across all processes, not once per process per interval.
 * On SQLite one process owns the file: the lock is a no-op and the claim still records the run.
 */
import { sql } from "kysely";
import type { Db } from "./db";

export type InstallationJob = "lifecycle-sweep" | "retention" | "weekly-summary" | "backup";

/** Arbitrary constants shared by every Errata process ("errata-" + job). */
const LOCK_KEYS: Record<InstallationJob, number> = {
  "lifecycle-sweep": 0x65726c73,
  retention: 0x65727274,
  "weekly-summary": 0x65727773,
  backup: 0x65726275,
};

export type LockedRun<T> = { ran: true; value: T } | { ran: false };

/** Runs `fn` if no other process holds this job's lock; `{ ran: false }` otherwise. */
export async function withJobLock<T>(db: Db, job: InstallationJob, fn: () => Promise<T>): Promise<LockedRun<T>> {
  if (db.dialect === "sqlite") return { ran: true, value: await fn() };
  const key = LOCK_KEYS[job];
  return db.kysely.connection().execute(async (conn) => {
    const got = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${key}) as locked`.execute(conn);
    if (got.rows[0]?.locked !== true) return { ran: false } as const;
    try {
      return { ran: true, value: await fn() } as const;
    } finally {
      // A terminated connection has lost the lock already; nothing to release then.
      await sql`select pg_advisory_unlock(${key})`.execute(conn).catch(() => undefined);
    }
  });
}

/** Fixed width, so the text column orders like the number (the table is key/value text). */
function stamp(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(16, "0");
}

/**
 * Claims this interval's run of `job`: true for exactly one caller per `intervalMs` across the
 * installation (the one whose update moved the last-start stamp), false for the rest.
 */
export async function claimJobRun(db: Db, job: InstallationJob, now: number, intervalMs: number): Promise<boolean> {
  const key = `job:${job}:started_at`;
  await db.kysely
    .insertInto("installation")
    .values({ key, value: stamp(0) })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const r = await db.kysely
    .updateTable("installation")
    .set({ value: stamp(now) })
    .where("key", "=", key)
    .where("value", "<=", stamp(now - intervalMs))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
