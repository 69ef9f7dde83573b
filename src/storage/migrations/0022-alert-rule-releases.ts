import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * The crash-free alert trigger (issue 11): per (rule, release) whether the rule already sent for
 * the release's current drop below its threshold, and when it last sent (the throttle). Written in
 * the digest transaction that records the session counters, so a re-processed queue item finds the
 * latch set and sends nothing twice; it survives restarts like every other counter.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("alert_rule_releases")
    .addColumn("rule_id", "bigint", (c) => c.notNull())
    .addColumn("release", "text", (c) => c.notNull())
    .addColumn("below", "integer", (c) => c.notNull())
    .addColumn("last_notified_at", "bigint")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("alert_rule_releases_pk", ["rule_id", "release"])
    .execute();
}
