import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * `issues.last_release_seen`: the receive time of the event that set `last_release`. Two digest
 * threads or worker processes commit batches out of order; with the time, an older batch that
 * commits last no longer puts back an older release (the issue header's "in 2.0", the "resolve in
 * next release" default). Existing issues start with null: their next event with a release sets both.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("issues").addColumn("last_release_seen", "bigint").execute();
}
