import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * The issue lifecycle (SPEC §4) and retention (§9): resolution and ignore state on issues, the
 * activity log, releases (ordering for "resolved in release"), and the index retention scans by.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  // SQLite adds one column per ALTER TABLE statement.
  const columns: Array<[string, "text" | "bigint"]> = [
    ["resolution", "text"],
    ["ignore_details", "text"],
    ["resolved_at", "bigint"],
    ["status_changed_at", "bigint"],
    ["due_at", "bigint"],
    ["assignee_user_id", "text"],
  ];
  for (const [name, type] of columns) await db.schema.alterTable("issues").addColumn(name, type).execute();
  // The lifecycle sweep: time-based transitions that are due, and new issues turning ongoing.
  await db.schema.createIndex("issues_due_at").on("issues").column("due_at").execute();
  await db.schema.createIndex("issues_substatus_first_seen").on("issues").columns(["substatus", "first_seen"]).execute();
  await db.schema.createIndex("issues_assignee").on("issues").column("assignee_user_id").execute();

  await withId(db.schema.createTable("activity"), dialect)
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    // null: Errata itself (regressions, unignores, aging)
    .addColumn("actor_user_id", "text")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("activity_issue").on("activity").columns(["issue_id", "id"]).execute();

  // Releases belong to the organization (Sentry's model); release_projects says where they were seen.
  await withId(db.schema.createTable("releases"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("version", "text", (c) => c.notNull())
    // When Errata first knew the release: the ordering of versions that are not semver.
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("releases_org_version", ["org_id", "version"])
    .execute();
  await db.schema
    .createTable("release_projects")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("release_id", "bigint", (c) => c.notNull())
    .addColumn("first_seen", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("release_projects_pk", ["project_id", "release_id"])
    .execute();

  // Age-based retention walks a project's events oldest first.
  await db.schema.createIndex("events_project_received").on("events").columns(["project_id", "received_at", "id"]).execute();
}
