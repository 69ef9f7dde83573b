import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * The team side (issue 9): invitations (the secret only as a sha256 hash; a row keeps its history:
 * accepted / revoked timestamps, expiry), teams with their members and projects, and an issue's
 * assignment to a team.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable("invitations"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("invited_by", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("accepted_at", "bigint")
    .addColumn("accepted_user_id", "text")
    .addColumn("revoked_at", "bigint")
    .execute();
  await db.schema.createIndex("invitations_org").on("invitations").columns(["org_id", "email"]).execute();

  await withId(db.schema.createTable("teams"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("teams_org_slug", ["org_id", "slug"])
    .execute();
  await db.schema
    .createTable("team_members")
    .addColumn("team_id", "bigint", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("team_members_pk", ["team_id", "user_id"])
    .execute();
  await db.schema.createIndex("team_members_user").on("team_members").column("user_id").execute();
  await db.schema
    .createTable("team_projects")
    .addColumn("team_id", "bigint", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("team_projects_pk", ["team_id", "project_id"])
    .execute();
  await db.schema.createIndex("team_projects_project").on("team_projects").column("project_id").execute();

  await db.schema.alterTable("issues").addColumn("assignee_team_id", "bigint").execute();
}
