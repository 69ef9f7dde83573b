import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * SCIM 2.0 provisioning and groups that become teams (issue 42).
 *
 *  - `scim_tokens`: the organization's SCIM bearer token, hashed (shown once).
 *  - `scim_users`: what the identity provider sent about a person it provisions (externalId,
 *    userName, active), so answers echo them; the membership itself is the row in `members`. A
 *    person deactivated by SCIM has no membership left but keeps this row (`active` 0), so the
 *    provider still finds them as inactive (Entra reads back what it disabled) and can reactivate.
 *  - `idp_groups`: groups of the identity provider the organization knows — pushed by SCIM (with
 *    its SCIM id) or named by an owner — each mapped to a team and/or a role;
 *    `idp_group_members`: who is in each, from SCIM or from the groups a sign-in asserted.
 *  - `members.idp_managed`, `team_members.managed`: memberships the identity provider manages;
 *    the members and teams pages refuse manual changes to them.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("scim_tokens")
    .addColumn("org_id", "bigint", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("token_prefix", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_used_at", "bigint")
    .execute();
  await db.schema
    .createTable("scim_users")
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("external_id", "text")
    .addColumn("user_name", "text", (c) => c.notNull())
    .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
    /** 1: SCIM created the account (its provider may sign it in without linking); 0: an existing member */
    .addColumn("created_account", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("scim_users_pk", ["org_id", "user_id"])
    .execute();
  await withId(db.schema.createTable("idp_groups"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("scim_id", "text")
    .addColumn("external_id", "text")
    .addColumn("team_id", "bigint")
    .addColumn("role", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("idp_groups_org_name", ["org_id", "name"])
    .addUniqueConstraint("idp_groups_scim_id", ["scim_id"])
    .execute();
  await db.schema
    .createTable("idp_group_members")
    .addColumn("group_id", "bigint", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    /** "scim" or "signin" (the groups a sign-in asserted) */
    .addColumn("source", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("idp_group_members_pk", ["group_id", "user_id", "source"])
    .execute();
  await db.schema.createIndex("idp_group_members_user").on("idp_group_members").column("user_id").execute();
  await db.schema
    .alterTable("members")
    .addColumn("idp_managed", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("team_members")
    .addColumn("managed", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
