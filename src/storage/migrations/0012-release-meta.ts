import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * What Sentry's release API carries beyond a version (issue 10): finalize time, ref and URL,
 * archived status; the commits `sentry-cli releases set-commits` sends (or the refs it names when a
 * repository integration is assumed), stored as sent; and deploys. Separate tables, one row per
 * release at most in `release_meta`, so the release rows the digest writes stay untouched.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("release_meta")
    .addColumn("release_id", "bigint", (c) => c.primaryKey())
    .addColumn("date_started", "bigint")
    .addColumn("date_released", "bigint")
    .addColumn("ref", "text")
    .addColumn("url", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("open"))
    .execute();

  await withId(db.schema.createTable("release_commits"), dialect)
    .addColumn("release_id", "bigint", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("repository", "text", (c) => c.notNull())
    .addColumn("commit_id", "text", (c) => c.notNull())
    .addColumn("previous_commit", "text")
    .addColumn("author_name", "text")
    .addColumn("author_email", "text")
    .addColumn("message", "text")
    .addColumn("committed_at", "bigint")
    .execute();
  await db.schema.createIndex("release_commits_release").on("release_commits").columns(["release_id", "position"]).execute();

  await withId(db.schema.createTable("release_deploys"), dialect)
    .addColumn("release_id", "bigint", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("url", "text")
    .addColumn("date_started", "bigint")
    .addColumn("date_finished", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("release_deploys_release").on("release_deploys").columns(["release_id", "date_finished"]).execute();
}
