import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * Keys imported from Sentry (issue 32) keep their DSN whole, so SDKs change only the host:
 * - `secret_key`: Sentry's deprecated secret half (`public:secret@host`), kept verbatim so the
 *   key reads back as it was; ingest never checks it.
 * - `dsn_project_id`: the project id the old DSN carries when that id is taken by another project
 *   here. Ingest accepts the key on that id as well as on its project's own, so the lookup that
 *   already authenticates the key (one indexed read, cached) also routes the alias — no second table.
 * - `invitation_teams`: the teams an invitation puts its member in when accepted (imported members
 *   keep their Sentry teams); an invitation without rows joins the default team as before.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("project_keys").addColumn("secret_key", "text").execute();
  await db.schema.alterTable("project_keys").addColumn("dsn_project_id", "bigint").execute();
  await db.schema
    .createTable("invitation_teams")
    .addColumn("invitation_id", "bigint", (c) => c.notNull())
    .addColumn("team_id", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("invitation_teams_pk", ["invitation_id", "team_id"])
    .execute();
}
