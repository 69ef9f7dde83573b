import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * `issue_claims`: the issues a merge or delete in flight has claimed (src/storage/issues/claims.ts).
 * Those operations span several transactions (chunks of events); a claim, taken under the issue
 * locks, keeps other triage off the issues until they finish. `owner` names the operation's run,
 * `expires_at` lets a run whose process died be taken over (and finished) instead of blocking.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("issue_claims")
    .addColumn("issue_id", "bigint", (c) => c.primaryKey())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("operation", "text", (c) => c.notNull())
    .addColumn("target_issue_id", "bigint")
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("actor_user_id", "text")
    .addColumn("claimed_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("issue_claims_owner").on("issue_claims").column("owner").execute();
}
