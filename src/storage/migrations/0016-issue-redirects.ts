import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * Merged issues keep their URLs: each merged issue id points at the issue that absorbed it (Sentry's
 * GroupRedirect), so the issue page and `GET …/issues/{id}/` lead to the survivor instead of a 404.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("issue_redirects")
    .addColumn("issue_id", "bigint", (c) => c.primaryKey())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("target_issue_id", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("issue_redirects_target").on("issue_redirects").column("target_issue_id").execute();
}
