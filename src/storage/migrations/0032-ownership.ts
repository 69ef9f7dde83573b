import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * Routing errors to who can fix them (issue 30): a project's ownership rules as written (the
 * digest parses them; owners are resolved against the organization when they are saved and again
 * when an issue is assigned), and the files each release commit changed (Sentry's `patch_set`),
 * which suspect commits are matched on.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("project_ownership")
    .addColumn("project_id", "bigint", (c) => c.primaryKey())
    .addColumn("raw", "text", (c) => c.notNull())
    .addColumn("fallthrough", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("auto_assignment", "text", (c) => c.notNull().defaultTo("owner"))
    .addColumn("codeowners_auto_sync", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable("release_commit_files"), dialect)
    .addColumn("release_id", "bigint", (c) => c.notNull())
    .addColumn("commit_id", "text", (c) => c.notNull())
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("change_type", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("release_commit_files_release").on("release_commit_files").columns(["release_id", "commit_id"]).execute();
}
