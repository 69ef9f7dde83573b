import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";

/**
 * PostgreSQL: queue bodies compressed with lz4 instead of pglz (issue 13). Every body over ~2 KB is
 * compressed as it is inserted, on the ingest's commit path, and read once by the digest: with
 * pglz a 64-event group commit of 8 KB envelopes took 8.0-8.5 ms, with lz4 5.6 ms (storing them
 * uncompressed, 6.5-6.8 ms: more WAL to flush). Only new values change; rows already queued are
 * read as they are. A server built without lz4 keeps pglz: the setting is an optimisation, so the
 * migration must not fail there (any error of the ALTER is swallowed inside its own block).
 * SQLite: nothing to do.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== "postgres") return;
  await sql`
    DO $$
    BEGIN
      ALTER TABLE queue_bodies ALTER COLUMN body SET COMPRESSION lz4;
    EXCEPTION WHEN OTHERS THEN
      NULL;
    END
    $$`.execute(db);
}
