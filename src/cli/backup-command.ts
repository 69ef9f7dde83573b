/**
 * `errata backup <dir|file>` and `errata restore <archive> [--into …]` (issue 43). Both read the
 * server's configuration (DATA_DIR, DATABASE_URL); the backup runs online, beside a running server.
 * What goes into the archive and why it is consistent: storage/backup/create-backup.ts.
 */
import path from "node:path";
import type { Command } from "commander";
import { type Config, loadConfig } from "../config";
import { describeCounts } from "../core/backup/manifest";
import { migrateAuth } from "../server/auth/auth";
import { finishBackupRun, startBackupRun } from "../storage/backup/backup-runs";
import { archivePathFor, createBackup } from "../storage/backup/create-backup";
import { type RestoreTarget, restoreBackup } from "../storage/backup/restore-backup";
import { type Db, openDb } from "../storage/db";
import { getOrCreateSecret } from "../storage/installation";
import { migrateToLatest } from "../storage/migrate";
import { ERRATA_VERSION } from "../version";

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** `--into`: a postgres:// URL or a data directory; default: this configuration's database. */
export function restoreTargetOf(into: string | undefined, config: Config): RestoreTarget {
  if (into?.match(/^postgres(ql)?:\/\//)) return { kind: "postgres", url: into };
  if (into) return { kind: "sqlite", dataDir: path.resolve(into) };
  return config.database.kind === "postgres" ? { kind: "postgres", url: config.database.url } : { kind: "sqlite", dataDir: config.dataDir };
}

function migrator(config: Config): (db: Db) => Promise<void> {
  return async (db) => {
    await migrateToLatest(db);
    await migrateAuth(db, config, config.secret ?? (await getOrCreateSecret(db)));
  };
}

export function registerBackupCommands(cli: Command): void {
  cli
    .command("backup")
    .description("write a consistent backup archive (database, queue, blobs) while Errata runs")
    .argument("<target>", "a folder (a dated errata-backup-….tar.gz is written in it) or an archive path")
    .action(async (target: string) => {
      const config = loadConfig();
      const out = archivePathFor(target, Date.now());
      const db = openDb(config.database, { poolSize: 1 });
      try {
        await migrateToLatest(db);
        const run = await startBackupRun(db, "manual", Date.now());
        try {
          const r = await createBackup({ database: config.database, dataDir: config.dataDir, out, errataVersion: ERRATA_VERSION });
          await finishBackupRun(db, run, { now: Date.now(), ok: true, path: r.file, size: r.size });
          process.stdout.write(
            `Backed up ${r.manifest.dialect} (schema ${r.manifest.schema}) to ${r.file} (${mib(r.size)}, ${r.manifest.files.length} files)\n` +
              `Counts: ${describeCounts(r.manifest.counts)}\n`,
          );
        } catch (err) {
          await finishBackupRun(db, run, { now: Date.now(), ok: false, path: out, error: (err as Error).message }).catch(() => {});
          throw err;
        }
      } finally {
        await db.close();
      }
    });

  cli
    .command("restore")
    .description("restore a backup archive into an empty data directory or PostgreSQL database (SQLite → PostgreSQL too)")
    .argument("<archive>", "an archive written by errata backup")
    .option("--into <target>", "a data directory or postgres://… URL (default: DATA_DIR or DATABASE_URL)")
    .action(async (archive: string, opts: { into?: string }) => {
      const config = loadConfig();
      const into = restoreTargetOf(opts.into, config);
      const r = await restoreBackup({ archive: path.resolve(archive), into, migrate: migrator(config) });
      const where = into.kind === "postgres" ? "PostgreSQL" : into.dataDir;
      process.stdout.write(
        `Restored ${r.manifest.dialect} backup of ${r.manifest.createdAt} (Errata ${r.manifest.errataVersion}, schema ${r.manifest.schema}) into ${where}${r.moved ? " (moved from SQLite)" : ""}\n` +
          `Checksums of ${r.manifest.files.length} files verified; counts agree: ${describeCounts(r.counts)}\n`,
      );
    });
}
