import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * "Forgot password" links (issue 9): the secret in the mailed link is kept only as its sha256,
 * a link works once (used_at is claimed compare-and-set) and expires.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable("password_resets"), dialect)
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint")
    .execute();
  await db.schema.createIndex("password_resets_user_created").on("password_resets").columns(["user_id", "created_at"]).execute();
}
