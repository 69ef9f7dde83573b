/**
 * The blob store (ARCHITECTURE principle 12): big bodies kept apart from the hot tables and never
 * held whole in memory longer than one blob. Replay segments live here today; source maps and
 * attachments can move here later. Keys are relative paths (`replays/<project>/<replay>/<segment>`).
 *
 *   SQLite      files under DATA_DIR/blobs/<key> (file-blobs.ts), written atomically: temp file,
 *               fsync, rename, fsync of the directory — a blob put() resolved survives kill -9.
 *               `errata backup` archives DATA_DIR/blobs/ with the database.
 *   PostgreSQL  the `blobs` table (pg-blobs.ts), so every process of a fleet reads every blob.
 */
import type { Db } from "../db";
import type { BlobStore } from "./blob-types";
import { createFileBlobStore } from "./file-blobs";
import { createPgBlobStore } from "./pg-blobs";

export type { BlobInfo, BlobStore } from "./blob-types";

/** The store for this database: files beside SQLite, the `blobs` table on PostgreSQL. */
export function createBlobStore(db: Db, dataDir: string): BlobStore {
  return db.dialect === "postgres" ? createPgBlobStore(db) : createFileBlobStore(dataDir);
}
