import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * Crash-free users: a release's distinct users (session_users) now say whether any of their
 * sessions in that bucket crashed. Rows from before this migration count as not crashed.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable("session_users")
    .addColumn("crashed", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
