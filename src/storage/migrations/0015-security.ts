import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * Login throttling (SPEC §9): one row per failed (or in-flight) sign-in per subject — the hashed
 * account email or the client address — so every web process sees the same counts.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable("login_failures"), dialect)
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("login_failures_subject_at").on("login_failures").columns(["subject", "at"]).execute();
  await db.schema.createIndex("login_failures_at").on("login_failures").column("at").execute();
}
