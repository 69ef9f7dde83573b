import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * Alerts (issue 11): rules and channels per project, the per (rule, issue) counters of the
 * frequency trigger and the throttle, the notification outbox the digest writes in its own
 * transaction, issue mutes and per-user email opt-outs.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable("alert_channels"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("config", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("alert_channels_project").on("alert_channels").column("project_id").execute();

  await withId(db.schema.createTable("alert_rules"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("triggers", "text", (c) => c.notNull())
    .addColumn("filters", "text", (c) => c.notNull())
    .addColumn("channel_ids", "text", (c) => c.notNull())
    .addColumn("throttle_minutes", "integer", (c) => c.notNull())
    .addColumn("hourly_cap", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("alert_rules_project").on("alert_rules").column("project_id").execute();

  await db.schema
    .createTable("alert_rule_issues")
    .addColumn("rule_id", "bigint", (c) => c.notNull())
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("window_start", "bigint", (c) => c.notNull())
    .addColumn("base_events", "bigint", (c) => c.notNull())
    .addColumn("base_users", "bigint", (c) => c.notNull())
    .addColumn("fired_in_window", "integer", (c) => c.notNull())
    .addColumn("last_notified_at", "bigint")
    .addPrimaryKeyConstraint("alert_rule_issues_pk", ["rule_id", "issue_id"])
    .execute();

  await withId(db.schema.createTable("notifications"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("rule_id", "bigint")
    .addColumn("channel_id", "bigint", (c) => c.notNull())
    .addColumn("issue_id", "bigint")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("trigger", "text")
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    .addColumn("lease_until", "bigint")
    .addColumn("last_error", "text")
    .addColumn("response_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("delivery_id", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("sent_at", "bigint")
    .execute();
  // The delivery loop's claim: due pending rows in order.
  await db.schema.createIndex("notifications_due").on("notifications").columns(["status", "next_attempt_at"]).execute();
  // The hourly cap and the delivery log per rule.
  await db.schema.createIndex("notifications_rule").on("notifications").columns(["rule_id", "created_at"]).execute();
  await db.schema.createIndex("notifications_project").on("notifications").columns(["project_id", "id"]).execute();

  await db.schema
    .createTable("alert_mutes")
    .addColumn("issue_id", "bigint", (c) => c.primaryKey())
    .addColumn("until", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("alert_email_optouts")
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("alert_email_optouts_pk", ["user_id", "project_id"])
    .execute();
}
