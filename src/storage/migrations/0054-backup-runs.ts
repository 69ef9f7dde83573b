import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * Backup runs (issue 43): each `errata backup` and each scheduled backup (BACKUP_DIR/BACKUP_EVERY)
 * records its start, end, outcome, archive path and size, so the installation page shows the last
 * success, its size and the last error. `trigger` is "scheduled" or "manual".
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable("backup_runs"), dialect)
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("finished_at", "bigint")
    .addColumn("ok", "integer")
    .addColumn("path", "text")
    .addColumn("size", "bigint")
    .addColumn("error", "text")
    .execute();
  await db.schema.createIndex("backup_runs_started").on("backup_runs").column("started_at").execute();
}
