/**
 * Scheduled backups (BACKUP_DIR, BACKUP_EVERY, BACKUP_KEEP): the primary digest thread of every
 * worker process runs this loop, and the job lock and run claim (storage/job-lock.ts) make one
 * backup per interval across the installation. Each run is recorded in `backup_runs` (the
 * installation's Backups page); after a success the oldest archives beyond BACKUP_KEEP go.
 *
 * On SQLite the snapshot (`VACUUM INTO`) runs in this thread: the digest pauses for its length
 * while ingest goes on acknowledging into the queue file, which the digest then catches up on.
 */
import fs from "node:fs";
import path from "node:path";
import type { BackupConfig, Config } from "../config";
import type { Logger } from "../log";
import { finishBackupRun, startBackupRun } from "../storage/backup/backup-runs";
import { archivePathFor, createBackup } from "../storage/backup/create-backup";
import type { Db } from "../storage/db";
import { claimJobRun, withJobLock } from "../storage/job-lock";
import { ERRATA_VERSION } from "../version";

/** How often a worker looks whether the interval's backup is due (the claim makes it run once). */
const LOOK_EVERY_MS = 60_000;
const ARCHIVE = /^errata-backup-\d{8}T\d{6}Z\.tar\.gz$/;

/** Deletes the oldest of this folder's dated archives beyond `keep`; returns how many went. */
export async function pruneArchives(dir: string, keep: number): Promise<number> {
  const names = (await fs.promises.readdir(dir)).filter((n) => ARCHIVE.test(n)).sort();
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const n of old) await fs.promises.rm(path.join(dir, n), { force: true });
  return old.length;
}

/** One scheduled backup, recorded; returns the archive's path, or throws after recording the error. */
export async function runScheduledBackup(
  db: Db,
  config: { backup: BackupConfig & { dir: string }; database: Config["database"]; dataDir: string },
  now: () => number,
): Promise<{ file: string; size: number; pruned: number }> {
  const { dir, keep } = config.backup;
  const run = await startBackupRun(db, "scheduled", now());
  const out = (() => {
    fs.mkdirSync(dir, { recursive: true });
    return archivePathFor(`${dir}${path.sep}`, now());
  })();
  try {
    const r = await createBackup({ database: config.database, dataDir: config.dataDir, out, errataVersion: ERRATA_VERSION, now });
    await finishBackupRun(db, run, { now: now(), ok: true, path: r.file, size: r.size });
    return { file: r.file, size: r.size, pruned: await pruneArchives(dir, keep) };
  } catch (err) {
    await finishBackupRun(db, run, { now: now(), ok: false, path: out, error: (err as Error)?.message ?? String(err) });
    throw err;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export async function runBackupLoop(o: {
  db: Db;
  config: { backup: BackupConfig; database: Config["database"]; dataDir: string };
  log: Logger;
  signal: AbortSignal;
  now: () => number;
  firstDelayMs: number;
}): Promise<void> {
  const dir = o.config.backup.dir;
  if (!dir) return;
  const config = { ...o.config, backup: { ...o.config.backup, dir } };
  await sleep(o.firstDelayMs, o.signal);
  while (!o.signal.aborted) {
    try {
      const locked = await withJobLock(o.db, "backup", async () => {
        if (!(await claimJobRun(o.db, "backup", o.now(), config.backup.everyMs))) return undefined;
        return runScheduledBackup(o.db, config, o.now);
      });
      if (locked.ran && locked.value) o.log.info({ ...locked.value }, "scheduled backup written");
    } catch (err) {
      o.log.error({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, "scheduled backup failed");
    }
    await sleep(Math.min(LOOK_EVERY_MS, config.backup.everyMs), o.signal);
  }
}
