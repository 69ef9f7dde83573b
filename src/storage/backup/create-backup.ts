/**
 * `errata backup`: one archive holding a consistent copy of the installation while it runs.
 *
 * SQLite: the queue file is copied first, then the main file, each by `VACUUM INTO` (one read
 * transaction: a consistent snapshot whatever ingest and the digest write meanwhile, with no WAL to
 * go with it). In that order an event acknowledged before the backup began is in the queue copy or,
 * digested before the queue was copied, in the later main copy; one digested in between is in both,
 * and `queue_done` in the main copy makes its queue row a no-op (exactly once, see queue/file.ts).
 * Then the blob folder (replays), whose files are written whole and renamed into place, so each
 * is read complete; a blob newer than the main copy is an orphan that replay retention sweeps.
 *
 * PostgreSQL: `pg_dump` in custom format under a snapshot exported from a repeatable-read
 * transaction, in which the manifest's counts are taken too — the counts are the dump's. The queue
 * and the blobs are tables there.
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import type { Config } from "../../config";
import { ARCHIVE_FORMAT, type BackupManifest, MANIFEST_NAME, type ManifestFile } from "../../core/backup/manifest";
import { AppError } from "../../core/errors";
import { BLOB_DIR } from "../blobs/file-blobs";
import { openDb } from "../db";
import { queueFileOf } from "../queue/file";
import SQLite from "../sqlite-driver";
import { createArchiveWriter } from "./archive-writer";
import { pgDump } from "./pg-tools";
import { countPostgres, countSqlite, countSqliteQueue, postgresSchema, sqliteSchema } from "./table-counts";

export interface BackupResult {
  file: string;
  size: number;
  manifest: BackupManifest;
}

export interface BackupOptions {
  database: Config["database"];
  dataDir: string;
  /** the archive to write (a .tar.gz path) */
  out: string;
  errataVersion: string;
  now?: () => number;
}

/** `dir/` or an existing folder → `dir/errata-backup-20261128T001500Z.tar.gz`; anything else is the file itself. */
export function archivePathFor(target: string, now: number): string {
  const isDir = target.endsWith("/") || target.endsWith(path.sep) || fs.statSync(target, { throwIfNoEntry: false })?.isDirectory();
  if (!isDir) return path.resolve(target);
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return path.resolve(target, `errata-backup-${stamp}.tar.gz`);
}

/** A consistent copy of one SQLite file, by VACUUM INTO from a connection of its own. */
function vacuumInto(source: string, dest: string): void {
  const handle = new SQLite(source, { fileMustExist: true });
  try {
    handle.pragma("busy_timeout = 10000");
    handle.prepare("VACUUM INTO ?").run(dest);
  } finally {
    handle.close();
  }
}

/** Blob files under `root`, as archive-relative keys, sorted; temp files of unfinished puts skipped. */
async function listBlobFiles(root: string, rel = ""): Promise<string[]> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(rel ? path.join(root, ...rel.split("/")) : root, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith(".tmp-")) continue;
    const key = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listBlobFiles(root, key)));
    else if (e.isFile()) out.push(key);
  }
  return out;
}

export async function createBackup(o: BackupOptions): Promise<BackupResult> {
  const now = o.now ?? Date.now;
  // Staged beside the archive: the snapshots need its disk's room anyway, and nothing lands elsewhere.
  const stage = await fs.promises
    .mkdir(path.dirname(o.out), { recursive: true })
    .then(() => fs.promises.mkdtemp(path.join(path.dirname(o.out), ".errata-backup-")))
    .catch((err: Error) => {
      throw new AppError("backup_failed", `Cannot write into ${path.dirname(o.out)}: ${err.message}`);
    });
  const writer = await createArchiveWriter(o.out).catch(async (err: Error) => {
    await fs.promises.rm(stage, { recursive: true, force: true });
    throw new AppError("backup_failed", `Cannot write ${o.out}: ${err.message}`);
  });
  try {
    const files: ManifestFile[] = [];
    let counts: Record<string, number>;
    let schema: string;
    if (o.database.kind === "sqlite") {
      const queueCopy = path.join(stage, "errata.queue.db");
      const mainCopy = path.join(stage, "errata.db");
      // Order matters (see the header): the queue before the main file.
      vacuumInto(queueFileOf(o.database.file), queueCopy);
      vacuumInto(o.database.file, mainCopy);
      const main = new SQLite(mainCopy, { readonly: true });
      const queue = new SQLite(queueCopy, { readonly: true });
      try {
        counts = { ...countSqlite(main), queue: countSqliteQueue(queue) };
        schema = sqliteSchema(main);
      } finally {
        main.close();
        queue.close();
      }
      files.push(await writer.addFile("db/errata.db", mainCopy));
      files.push(await writer.addFile("db/errata.queue.db", queueCopy));
      await fs.promises.rm(mainCopy);
      await fs.promises.rm(queueCopy);
      const blobRoot = path.join(o.dataDir, BLOB_DIR);
      let blobs = 0;
      for (const key of await listBlobFiles(blobRoot)) {
        try {
          files.push(await writer.addFile(`blobs/${key}`, path.join(blobRoot, ...key.split("/"))));
          blobs += 1;
        } catch (err) {
          // Deleted by retention since it was listed: not part of this backup.
          if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        }
      }
      counts.blobs = blobs;
    } else {
      const dump = path.join(stage, "errata.pgdump");
      const url = o.database.url;
      const db = openDb(o.database, { poolSize: 1 });
      try {
        ({ counts, schema } = await db.kysely.connection().execute(async (conn) => {
          await sql`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`.execute(conn);
          try {
            const snap = await sql<{ id: string }>`SELECT pg_export_snapshot() AS id`.execute(conn);
            const c = await countPostgres(conn);
            const s = await postgresSchema(conn);
            await pgDump(url, dump, snap.rows[0]?.id);
            return { counts: c, schema: s };
          } finally {
            await sql`COMMIT`.execute(conn);
          }
        }));
      } finally {
        await db.close();
      }
      files.push(await writer.addFile("db/errata.pgdump", dump));
      await fs.promises.rm(dump);
    }
    const manifest: BackupManifest = {
      format: ARCHIVE_FORMAT,
      errataVersion: o.errataVersion,
      schema,
      dialect: o.database.kind,
      createdAt: new Date(now()).toISOString(),
      counts,
      files,
    };
    await writer.addBuffer(MANIFEST_NAME, Buffer.from(JSON.stringify(manifest, null, 2)));
    const size = await writer.finish();
    return { file: o.out, size, manifest };
  } catch (err) {
    await writer.abort();
    throw err;
  } finally {
    await fs.promises.rm(stage, { recursive: true, force: true });
  }
}
