import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * What an import from Sentry (issue 32) made of each source object that has no natural key here:
 * - `import_links`: (organization, kind, source key) → the local row it became — an alert rule
 *   (Sentry rule names are not unique), an imported issue. A second run finds the row and updates
 *   it instead of adding another; a killed run finds what it already wrote.
 * - `import_runs`: one row per import started from the settings page, polled for its progress bar
 *   and its report. No token is kept: the run holds it in memory only.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("import_links")
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("source_key", "text", (c) => c.notNull())
    .addColumn("local_id", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("import_links_pk", ["org_id", "kind", "source_key"])
    .execute();
  await db.schema
    .createTable("import_runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("progress", "text", (c) => c.notNull())
    .addColumn("report", "text")
    .addColumn("error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("import_runs_org").on("import_runs").columns(["org_id", "created_at"]).execute();
}
