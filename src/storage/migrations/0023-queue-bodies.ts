import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";
import { blobType } from "../dialect";

/**
 * Queue bodies in a table of their own (issue 13). A claim rewrites a queue row's lease; with the
 * body in the same row that rewrote the body's pages too (SQLite: the record's overflow chain,
 * ~5 KB of WAL per 8 KB event; PostgreSQL: a new tuple carrying the inline body). The lease row is
 * now a few dozen bytes and the body is written once by ingest and deleted once by the digest.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("queue_bodies")
    // SQLite: INTEGER PRIMARY KEY is the rowid itself (no second index); the id is queue.id.
    .addColumn("id", dialect === "postgres" ? "bigint" : "integer", (c) => c.primaryKey())
    .addColumn("body", blobType(dialect), (c) => c.notNull())
    .execute();
  await sql`INSERT INTO queue_bodies (id, body) SELECT id, body FROM queue`.execute(db);
  await db.schema.alterTable("queue").dropColumn("body").execute();
}
