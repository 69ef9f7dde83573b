import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * Routing errors to who can fix them, second part (issue 30):
 * - `alert_rules.targets`: the rule's email targets "issue owners" / "suspect commit authors" with
 *   their fallthrough (JSON, `[]` for rules written before);
 * - `notifications.target`: the target of an outbox row that goes to people rather than a channel
 *   (`channel_id` 0); its recipients are resolved when it is delivered;
 * - `project_codeowners`: CODEOWNERS files as pasted or posted (Sentry's codeowners API), and
 *   `external_names`: the organization's mapping of CODEOWNERS names (`@acme/payments`, `@pat`,
 *   emails) to its teams and members;
 * - `issue_links`: the URL of an existing tracker issue linked to an issue;
 * - `weekly_summary_sends`: one row per member, organization and week the summary was sent in (a
 *   restart does not send it again), `weekly_summary_optouts`: members who turned it off.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable("alert_rules")
    .addColumn("targets", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
  await db.schema.alterTable("notifications").addColumn("target", "text").execute();

  await withId(db.schema.createTable("project_codeowners"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("raw", "text", (c) => c.notNull())
    .addColumn("code_mapping_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("project_codeowners_project").on("project_codeowners").column("project_id").execute();

  await withId(db.schema.createTable("external_names"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("external_name", "text", (c) => c.notNull())
    .addColumn("team_id", "bigint")
    .addColumn("user_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("external_names_name").on("external_names").columns(["org_id", "external_name"]).unique().execute();

  await db.schema
    .createTable("issue_links")
    .addColumn("issue_id", "bigint", (c) => c.primaryKey())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("weekly_summary_sends")
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("week_start", "bigint", (c) => c.notNull())
    .addColumn("sent_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("weekly_summary_sends_pk", ["user_id", "org_id", "week_start"])
    .execute();
  await db.schema
    .createTable("weekly_summary_optouts")
    .addColumn("user_id", "text", (c) => c.primaryKey())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
}
