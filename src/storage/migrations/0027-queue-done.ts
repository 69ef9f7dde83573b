import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * SQLite: `queue_done`, the queue ids whose results the main file holds while the rows may still
 * be in the queue's own file (queue-file.ts, queue.ts). PostgreSQL keeps its queue in the same
 * database and deletes the rows in the digest's transaction: nothing to do.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== "sqlite") return;
  await db.schema
    .createTable("queue_done")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .execute();
}
