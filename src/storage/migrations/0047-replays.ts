import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { blobType, withId } from "../dialect";

/**
 * Session replay (issue 40). `replays` holds one row per replay with the fields its list filters and
 * sorts on, folded from every segment's `replay_event`; the recording itself is kept out of the hot
 * tables: `replay_segments` names each segment's blob (storage/blobs/: files under DATA_DIR/blobs/
 * beside SQLite, the `blobs` table on PostgreSQL so every process of a fleet reads every replay).
 * `replay_errors` links a replay to the error events it saw, from both sides: the replay_event's
 * `error_ids` and error events carrying the replay's id (their `replayId` tag or replay context).
 * `user_feedback.replay_id` is the replay a feedback widget report names.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable("replays"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    // 32 hex; unique across the installation: a DSN key may only add to its own project's replays.
    .addColumn("replay_id", "text", (c) => c.notNull().unique())
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("finished_at", "bigint", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("replay_type", "text")
    .addColumn("platform", "text")
    .addColumn("release", "text")
    .addColumn("environment", "text")
    .addColumn("dist", "text")
    .addColumn("user_id", "text")
    .addColumn("user_email", "text")
    .addColumn("user_username", "text")
    .addColumn("user_ip", "text")
    .addColumn("user_name", "text")
    .addColumn("browser_name", "text")
    .addColumn("browser_version", "text")
    .addColumn("os_name", "text")
    .addColumn("os_version", "text")
    .addColumn("device_name", "text")
    .addColumn("device_brand", "text")
    .addColumn("device_family", "text")
    .addColumn("device_model", "text")
    .addColumn("sdk_name", "text")
    .addColumn("sdk_version", "text")
    // JSON arrays (urls in visiting order; trace ids) and the tags as "\nkey=value\n" lines.
    .addColumn("urls", "text", (c) => c.notNull())
    .addColumn("trace_ids", "text", (c) => c.notNull())
    .addColumn("tags", "text", (c) => c.notNull())
    .addColumn("count_segments", "integer", (c) => c.notNull())
    .addColumn("count_errors", "integer", (c) => c.notNull())
    .addColumn("count_urls", "integer", (c) => c.notNull())
    .addColumn("count_clicks", "integer", (c) => c.notNull())
    .addColumn("count_dead_clicks", "integer", (c) => c.notNull())
    .addColumn("count_rage_clicks", "integer", (c) => c.notNull())
    .addColumn("activity", "integer", (c) => c.notNull())
    // stored (compressed) bytes of all segments: the per-replay size cap
    .addColumn("size_bytes", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("replays_project_started").on("replays").columns(["project_id", "started_at"]).execute();
  await db.schema.createIndex("replays_received").on("replays").columns(["received_at"]).execute();

  await db.schema
    .createTable("replay_segments")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("replay_id", "text", (c) => c.notNull())
    .addColumn("segment_id", "integer", (c) => c.notNull())
    .addColumn("blob_key", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("raw_size", "bigint", (c) => c.notNull())
    // the segment's first and last rrweb event times (epoch ms)
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("ended_at", "bigint", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("replay_segments_pk", ["replay_id", "segment_id"])
    .execute();
  await db.schema.createIndex("replay_segments_project").on("replay_segments").columns(["project_id"]).execute();

  await db.schema
    .createTable("replay_errors")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("replay_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    // set when the error event itself was digested (null: only the replay named it so far)
    .addColumn("issue_id", "bigint")
    .addColumn("timestamp", "bigint")
    .addPrimaryKeyConstraint("replay_errors_pk", ["replay_id", "event_id"])
    .execute();
  await db.schema.createIndex("replay_errors_issue").on("replay_errors").columns(["issue_id"]).execute();
  await db.schema.createIndex("replay_errors_project_event").on("replay_errors").columns(["project_id", "event_id"]).execute();

  // The blob store's PostgreSQL home (storage/blobs/pg-blobs.ts); SQLite keeps blobs as files.
  await db.schema
    .createTable("blobs")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("data", blobType(dialect), (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema.alterTable("user_feedback").addColumn("replay_id", "text").execute();
}
