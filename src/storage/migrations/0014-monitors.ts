import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * Cron monitors: the monitor (schedule and thresholds, per project and slug), its state per
 * environment (next expected check-in, streak, open issue) and the check-ins. Keys make the
 * at-least-once queue and the evaluator idempotent: a check-in by (monitor, environment, id), a
 * missed one by its expected time.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable("monitors"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    // active | paused
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("muted", "integer", (c) => c.notNull().defaultTo(0))
    // MonitorConfig as JSON (schedule, timezone, margin, runtime, thresholds)
    .addColumn("config", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("monitors_project_slug", ["project_id", "slug"])
    .execute();

  await withId(db.schema.createTable("monitor_environments"), dialect)
    .addColumn("monitor_id", "bigint", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    // active (no check-in yet) | ok | error | missed | timeout
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("last_checkin_at", "bigint")
    .addColumn("next_checkin_at", "bigint")
    .addColumn("next_checkin_latest", "bigint")
    .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("successes", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("issue_id", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("monitor_environments_monitor_env", ["monitor_id", "environment"])
    .execute();
  await db.schema.createIndex("monitor_environments_due").on("monitor_environments").column("next_checkin_latest").execute();

  await withId(db.schema.createTable("monitor_checkins"), dialect)
    .addColumn("monitor_id", "bigint", (c) => c.notNull())
    .addColumn("monitor_environment_id", "bigint", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    // the SDK's check_in_id (32 hex), or `missed-<expected ms>` for the evaluator's own
    .addColumn("check_in_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("duration_ms", "bigint")
    .addColumn("release", "text")
    .addColumn("expected_at", "bigint")
    // in_progress only: when it times out
    .addColumn("timeout_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("monitor_checkins_env_id", ["monitor_environment_id", "check_in_id"])
    .execute();
  await db.schema.createIndex("monitor_checkins_monitor_created").on("monitor_checkins").columns(["monitor_id", "created_at"]).execute();
  await db.schema.createIndex("monitor_checkins_timeout").on("monitor_checkins").column("timeout_at").execute();

  // Uptime (HTTP) monitors: config JSON (core/monitors/uptime.ts), state and the next check time
  // the checker claims by compare-and-set; one row per check result.
  await withId(db.schema.createTable("uptime_monitors"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("config", "text", (c) => c.notNull())
    .addColumn("paused", "integer", (c) => c.notNull().defaultTo(0))
    // pending | up | down
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("successes", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_check_at", "bigint", (c) => c.notNull())
    .addColumn("issue_id", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("uptime_monitors_due").on("uptime_monitors").column("next_check_at").execute();
  await withId(db.schema.createTable("uptime_results"), dialect)
    .addColumn("monitor_id", "bigint", (c) => c.notNull())
    .addColumn("checked_at", "bigint", (c) => c.notNull())
    .addColumn("up", "integer", (c) => c.notNull())
    .addColumn("status", "integer")
    .addColumn("latency_ms", "integer")
    .addColumn("error", "text")
    .execute();
  await db.schema.createIndex("uptime_results_monitor_at").on("uptime_results").columns(["monitor_id", "checked_at"]).execute();
}
