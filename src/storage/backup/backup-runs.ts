/** Backup runs (migration 0054): recorded by the scheduled job and by `errata backup`, read by the installation page. */
import type { Db } from "../db";
import type { BackupRunsTable } from "../schema";

export interface BackupRun {
  id: number;
  trigger: BackupRunsTable["trigger"];
  startedAt: number;
  finishedAt: number | null;
  ok: boolean | null;
  path: string | null;
  size: number | null;
  error: string | null;
}

export async function startBackupRun(db: Db, trigger: BackupRunsTable["trigger"], now: number): Promise<number> {
  const r = await db.kysely.insertInto("backup_runs").values({ trigger, started_at: now }).returning("id").executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function finishBackupRun(
  db: Db,
  id: number,
  r: { now: number; ok: boolean; path?: string; size?: number; error?: string },
): Promise<void> {
  await db.kysely
    .updateTable("backup_runs")
    .set({ finished_at: r.now, ok: r.ok ? 1 : 0, path: r.path ?? null, size: r.size ?? null, error: r.error?.slice(0, 2000) ?? null })
    .where("id", "=", id)
    .execute();
}

type Row = {
  id: number;
  trigger: string;
  started_at: number;
  finished_at: number | null;
  ok: number | null;
  path: string | null;
  size: number | null;
  error: string | null;
};

function toRun(r: Row): BackupRun {
  return {
    id: Number(r.id),
    trigger: r.trigger as BackupRunsTable["trigger"],
    startedAt: Number(r.started_at),
    finishedAt: r.finished_at === null ? null : Number(r.finished_at),
    ok: r.ok === null ? null : Number(r.ok) === 1,
    path: r.path,
    size: r.size === null ? null : Number(r.size),
    error: r.error,
  };
}

/** The latest runs, newest first (the page shows a few). */
export async function recentBackupRuns(db: Db, limit = 10): Promise<BackupRun[]> {
  const rows = await db.kysely
    .selectFrom("backup_runs")
    .selectAll()
    .orderBy("started_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => toRun(r as Row));
}

/** The latest successful run and the latest failed one. */
export async function backupSummary(db: Db): Promise<{ lastSuccess: BackupRun | null; lastFailure: BackupRun | null }> {
  const pick = (ok: number) =>
    db.kysely
      .selectFrom("backup_runs")
      .selectAll()
      .where("ok", "=", ok)
      .orderBy("started_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
  const [s, f] = await Promise.all([pick(1), pick(0)]);
  return { lastSuccess: s ? toRun(s as Row) : null, lastFailure: f ? toRun(f as Row) : null };
}

/**
 * Runs a restored copy shows as still running (the backup's own run, recorded before its snapshot)
 * are closed: nothing in the restored installation is running them.
 */
export async function closeInterruptedRuns(db: Db, now: number): Promise<void> {
  await db.kysely
    .updateTable("backup_runs")
    .set({ ok: 0, finished_at: now, error: "unfinished in the copy this installation was restored from" })
    .where("ok", "is", null)
    .execute();
}
