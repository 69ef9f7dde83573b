import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";

/**
 * `issue_daily`: events per issue and UTC day, the rollup of `issue_hourly` (0007). Sentry's issue
 * lists carry a 14-day series for every listed issue (issue 28); read from the hourly rows that is
 * up to 336 rows per issue, from this table at most 14. Written by the same digest upsert as the
 * hourly rows (src/storage/issues/stats.ts derives the day rows from the batch's hour rows), so
 * merges, unmerges and deletes keep both in step. Existing hourly counts are rolled up here.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("issue_daily")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("day", "bigint", (c) => c.notNull())
    .addColumn("count", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_daily_pk", ["issue_id", "day"])
    .execute();
  // Integer division on bigint columns in both dialects: the start of the UTC day.
  await sql`insert into issue_daily (issue_id, day, count)
    select issue_id, (hour / 86400000) * 86400000, sum(count) from issue_hourly
    group by issue_id, (hour / 86400000) * 86400000`.execute(db);
}
