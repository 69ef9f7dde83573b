import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";

/**
 * Next.js: issue flags (JSON array, e.g. `["deploy-skew"]`, null when none) for the classification
 * badges, and an index for "the newest events with this digest". A hot error repeats its digest
 * thousands of times; 0001's `(project_id, digest)` index would make every lookup read and sort all
 * of them. Partial: most events carry no digest and cost nothing here (both dialects support it and
 * use it for `digest = ?`).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable("issues").addColumn("flags", "text").execute();
  await db.schema
    .createIndex("events_digest_received")
    .on("events")
    .columns(["digest", "received_at", "id"])
    .where(sql.ref("digest"), "is not", null)
    .execute();
}
