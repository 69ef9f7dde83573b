import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";

/**
 * Issue statistics for the stream and the issue page, filled by the digest batch (one upsert per
 * issue and hour, and per issue, tag key and value, per batch):
 *
 * - `issue_hourly`: events per issue and hour — sparklines and the trend chart without touching
 *   the events table.
 * - `issue_tag_values` / `issue_tag_keys`: how many events of an issue carried each tag value —
 *   value-distribution bars, tag search (`browser:Chrome` → issues) and autocompletion.
 *
 * Plus the indexes the stream's sorts need. Existing events are counted from their columns
 * (hourly counts, level, environment, release); their other tags start counting from now.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("issue_hourly")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("hour", "bigint", (c) => c.notNull())
    .addColumn("count", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_hourly_pk", ["issue_id", "hour"])
    .execute();

  await db.schema
    .createTable("issue_tag_values")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("count", "bigint", (c) => c.notNull())
    .addColumn("last_seen", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_tag_values_pk", ["issue_id", "key", "value"])
    .execute();
  // Tag search and value autocompletion within a tenant's projects (covering: issue ids come from the index).
  await db.schema
    .createIndex("issue_tag_values_search")
    .on("issue_tag_values")
    .columns(["project_id", "key", "value", "issue_id"])
    .execute();
  // An issue's top values per key (distribution bars) without reading a high-cardinality key whole.
  await db.schema.createIndex("issue_tag_values_top").on("issue_tag_values").columns(["issue_id", "key", "count"]).execute();

  await db.schema
    .createTable("issue_tag_keys")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("count", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_tag_keys_pk", ["issue_id", "key"])
    .execute();
  await db.schema.createIndex("issue_tag_keys_project").on("issue_tag_keys").columns(["project_id", "key"]).execute();

  // The stream's sorts (last seen has 0001's index) and keyset pagination on (value, id).
  await db.schema.createIndex("issues_project_first_seen").on("issues").columns(["project_id", "first_seen", "id"]).execute();
  await db.schema.createIndex("issues_project_events").on("issues").columns(["project_id", "event_count", "id"]).execute();
  await db.schema.createIndex("issues_project_users").on("issues").columns(["project_id", "user_count", "id"]).execute();
  // Status-filtered default view (is:unresolved, newest activity first): per project, and across all
  // of an organization's projects (walked in order, filtered by project, it stops after one page).
  await db.schema
    .createIndex("issues_project_status_last_seen")
    .on("issues")
    .columns(["project_id", "status", "last_seen", "id"])
    .execute();
  await db.schema.createIndex("issues_status_last_seen").on("issues").columns(["status", "last_seen", "id"]).execute();

  await sql`insert into issue_hourly (issue_id, hour, count)
    select issue_id, (received_at / 3600000) * 3600000, count(*) from events group by issue_id, (received_at / 3600000) * 3600000`.execute(
    db,
  );
  for (const column of ["level", "environment", "release"] as const) {
    await sql`insert into issue_tag_values (issue_id, key, value, project_id, count, last_seen)
      select issue_id, ${sql.lit(column)}, ${sql.ref(column)}, min(project_id), count(*), max(received_at)
      from events where ${sql.ref(column)} is not null and ${sql.ref(column)} <> ''
      group by issue_id, ${sql.ref(column)}`.execute(db);
  }
  await sql`insert into issue_tag_keys (issue_id, key, project_id, count)
    select issue_id, key, min(project_id), sum(count) from issue_tag_values group by issue_id, key`.execute(db);
}
