import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * Grouping transitions: when a project switches to a newer grouping version, the digest keeps
 * matching issues by the previous version's hashes for a while (so nothing splits), recording the
 * new version's hashes on the issues it matches. These columns say from which version and since
 * when. Both null: no transition.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  // SQLite adds one column per ALTER TABLE statement.
  await db.schema.alterTable("projects").addColumn("grouping_previous", "text").execute();
  await db.schema.alterTable("projects").addColumn("grouping_switched_at", "bigint").execute();
}
