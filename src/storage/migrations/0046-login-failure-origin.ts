import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";

/**
 * Where a failed sign-in came from and what it aimed at (issue 39): `login_failures.account` (the
 * hashed account key, core/security/login-throttle.ts) and `address` (the client address) on every
 * row of an attempt. An address's back-off grows with the number of accounts it failed on, and the
 * notice to a locked account's owner says from how many addresses. Rows live for the throttle
 * window only (15 minutes by default), as before; older rows have neither and count as before.
 * Markers of things done once (`once:…`: the lock notice per window, a used one-time link) are
 * unique, so of concurrent web processes exactly one inserts each.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("login_failures").addColumn("account", "text").execute();
  await db.schema.alterTable("login_failures").addColumn("address", "text").execute();
  await sql`create unique index login_failures_once on login_failures (subject) where subject like 'once:%'`.execute(db);
}
