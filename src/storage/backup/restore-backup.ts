/**
 * `errata restore`: an archive into an EMPTY data directory (SQLite) or database (PostgreSQL), or
 * a SQLite archive into PostgreSQL (the move of a team that outgrew one file). Everything that can
 * refuse — a non-empty target, a corrupt or truncated archive, a schema newer than this code — is
 * checked before the target is touched: the archive is read into a staging folder beside it first.
 * Then the copy, the normal migrations for an older schema (`migrate`, the caller's: it also runs
 * Better Auth's), and the counts compared with the manifest's.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Config } from "../../config";
import { type BackupManifest, checkArchive, countDifferences, parseManifest } from "../../core/backup/manifest";
import { AppError } from "../../core/errors";
import { BLOB_DIR } from "../blobs/file-blobs";
import { type Db, openDb } from "../db";
import { latestMigration } from "../migrations/index";
import SQLite from "../sqlite-driver";
import { extractArchive } from "./archive-reader";
import { closeInterruptedRuns } from "./backup-runs";
import { copySqliteToPostgres } from "./copy-to-postgres";
import { pgRestore } from "./pg-tools";
import { countPostgres, countSqlite, countSqliteQueue, postgresTableCount } from "./table-counts";

export type RestoreTarget = { kind: "sqlite"; dataDir: string } | { kind: "postgres"; url: string };

export interface RestoreOptions {
  archive: string;
  into: RestoreTarget;
  /** brings a database up to this code's schema: migrations, then Better Auth's */
  migrate: (db: Db) => Promise<void>;
}

export interface RestoreResult {
  manifest: BackupManifest;
  target: RestoreTarget;
  /** rows per counted table in the restored database */
  counts: Record<string, number>;
  /** true for a SQLite archive restored into PostgreSQL */
  moved: boolean;
}

function sqliteConfig(dataDir: string): Config["database"] {
  return { kind: "sqlite", file: path.join(dataDir, "errata.db"), synchronous: "NORMAL" };
}

async function refuseNonEmpty(into: RestoreTarget): Promise<void> {
  if (into.kind === "sqlite") {
    const entries = await fs.promises.readdir(into.dataDir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return [] as string[];
      throw err;
    });
    if (entries.length > 0)
      throw new AppError("restore_target_not_empty", `${into.dataDir} is not empty (${entries.length} entries). Nothing was restored.`);
    return;
  }
  const db = openDb({ kind: "postgres", url: into.url }, { poolSize: 1 });
  try {
    const tables = await postgresTableCount(db.kysely);
    if (tables > 0)
      throw new AppError("restore_target_not_empty", `The PostgreSQL database already has ${tables} tables. Nothing was restored.`);
  } finally {
    await db.close();
  }
}

/** Counts of the restored database, the blob store included (files on SQLite, rows on PostgreSQL). */
async function countTarget(into: RestoreTarget): Promise<Record<string, number>> {
  if (into.kind === "postgres") {
    const db = openDb({ kind: "postgres", url: into.url }, { poolSize: 1 });
    try {
      return await countPostgres(db.kysely);
    } finally {
      await db.close();
    }
  }
  const file = path.join(into.dataDir, "errata.db");
  const main = new SQLite(file, { readonly: true });
  const queue = new SQLite(path.join(into.dataDir, "errata.queue.db"), { readonly: true });
  try {
    return { ...countSqlite(main), queue: countSqliteQueue(queue), blobs: await countFiles(path.join(into.dataDir, BLOB_DIR)) };
  } finally {
    main.close();
    queue.close();
  }
}

async function countFiles(dir: string): Promise<number> {
  const entries = await fs.promises.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [] as fs.Dirent[]);
  return entries.filter((e) => e.isFile() && !e.name.startsWith(".tmp-")).length;
}

async function migrateWith(database: Config["database"], migrate: RestoreOptions["migrate"]): Promise<void> {
  const db = openDb(database, { poolSize: 2 });
  try {
    await migrate(db);
    await closeInterruptedRuns(db, Date.now());
  } finally {
    await db.close();
  }
}

export async function restoreBackup(o: RestoreOptions): Promise<RestoreResult> {
  const into = o.into;
  await refuseNonEmpty(into);
  const stageParent = into.kind === "sqlite" ? path.dirname(path.resolve(into.dataDir)) : os.tmpdir();
  await fs.promises.mkdir(stageParent, { recursive: true });
  const stage = await fs.promises.mkdtemp(path.join(stageParent, ".errata-restore-"));
  try {
    const read = await extractArchive(o.archive, stage);
    if (read.manifest === undefined)
      throw new AppError(
        "backup_truncated",
        "The archive has no manifest.json (truncated, or not an Errata backup). Nothing was restored.",
      );
    const manifest = parseManifest(read.manifest);
    checkArchive(manifest, read.seen, latestMigration);
    if (manifest.dialect === "postgres" && into.kind === "sqlite")
      throw new AppError(
        "validation_failed",
        "A PostgreSQL backup restores into PostgreSQL only: pass --into postgres://… (an empty database). Nothing was restored.",
      );
    // The target may have been filled while the archive was read.
    await refuseNonEmpty(into);
    const moved = manifest.dialect === "sqlite" && into.kind === "postgres";
    if (manifest.dialect === "sqlite") {
      const staged = path.join(stage, "db");
      // The staged copy is ours: brought to this code's schema before it is moved or copied.
      await migrateWith(sqliteConfig(staged), o.migrate);
      if (into.kind === "sqlite") {
        await fs.promises.mkdir(into.dataDir, { recursive: true });
        for (const f of await fs.promises.readdir(staged)) await fs.promises.rename(path.join(staged, f), path.join(into.dataDir, f));
        const blobs = path.join(stage, "blobs");
        if (fs.existsSync(blobs)) await fs.promises.rename(blobs, path.join(into.dataDir, BLOB_DIR));
      } else {
        await migrateWith({ kind: "postgres", url: into.url }, o.migrate);
        const main = new SQLite(path.join(staged, "errata.db"), { readonly: true });
        const queue = new SQLite(path.join(staged, "errata.queue.db"), { readonly: true });
        const target = openDb({ kind: "postgres", url: into.url }, { poolSize: 1 });
        try {
          await copySqliteToPostgres(main, queue, path.join(stage, "blobs"), target);
        } finally {
          main.close();
          queue.close();
          await target.close();
        }
      }
    } else {
      await pgRestore((into as { url: string }).url, path.join(stage, "db", "errata.pgdump"));
      await migrateWith({ kind: "postgres", url: (into as { url: string }).url }, o.migrate);
    }
    const counts = await countTarget(into);
    const differ = countDifferences(manifest.counts, counts);
    if (differ.length > 0) throw new AppError("restore_counts_differ", `After the restore the counts differ: ${differ.join("; ")}.`);
    return { manifest, target: into, counts, moved };
  } finally {
    await fs.promises.rm(stage, { recursive: true, force: true });
  }
}
