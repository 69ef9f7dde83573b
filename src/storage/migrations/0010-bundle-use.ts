import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * Artifact bundles expire when unused (as Sentry's do): the digest records when it last resolved
 * a frame with a bundle, at most daily. NULL (bundles from before, or never used) counts as the
 * upload time.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("artifact_bundles").addColumn("last_used_at", "bigint").execute();
}
