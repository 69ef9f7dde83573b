import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { blobType, withId } from "../dialect";

/**
 * What ingest accepts besides events: outcome counters, attachments, user feedback and release
 * health (sessions). Every table is keyed so that processing a queue row twice (the at-least-once
 * queue) does not store anything twice: attachments by content checksum, feedback by its id,
 * session updates through the per-session state.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const blob = blobType(dialect);

  // Counters, not rows per item: one row per project, key, hour, category, outcome and reason.
  await db.schema
    .createTable("outcomes")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("key_id", "bigint", (c) => c.notNull())
    .addColumn("hour", "bigint", (c) => c.notNull())
    .addColumn("category", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("quantity", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("outcomes_pk", ["project_id", "key_id", "hour", "category", "outcome", "reason"])
    .execute();
  await db.schema.createIndex("outcomes_project_hour").on("outcomes").columns(["project_id", "hour"]).execute();

  await withId(db.schema.createTable("attachments"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("attachment_type", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("checksum", "text", (c) => c.notNull())
    .addColumn("data", blob, (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("attachments_dedupe", ["project_id", "event_id", "name", "checksum"])
    .execute();

  await withId(db.schema.createTable("user_feedback"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    // user_report / crash-report dialog: the event it is about; feedback item: its own event id.
    .addColumn("feedback_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("comments", "text", (c) => c.notNull())
    .addColumn("url", "text")
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("user_feedback_project_feedback", ["project_id", "feedback_id"])
    .execute();
  await db.schema.createIndex("user_feedback_project_created").on("user_feedback").columns(["project_id", "created_at"]).execute();
  await db.schema.createIndex("user_feedback_event").on("user_feedback").columns(["project_id", "event_id"]).execute();

  // Release health: per project, release, environment and hour the session started.
  // total = ok + errored + unhandled + abnormal + crashed (each session sits in exactly one).
  await db.schema
    .createTable("session_aggregates")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("release", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("hour", "bigint", (c) => c.notNull())
    .addColumn("total", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("ok", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("errored", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("unhandled", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("abnormal", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("crashed", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("users", "bigint", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("session_aggregates_pk", ["project_id", "release", "environment", "hour"])
    .execute();

  // The last known status class of each live session, so a re-sent or later update moves the
  // session between columns instead of counting it again. Pruned after a few days.
  await db.schema
    .createTable("session_states")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("sid", "text", (c) => c.notNull())
    .addColumn("release", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("hour", "bigint", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("session_states_pk", ["project_id", "sid"])
    .execute();
  await db.schema.createIndex("session_states_updated").on("session_states").column("updated_at").execute();

  // Distinct users (hashed `did`) per aggregate bucket; `session_aggregates.users` counts them.
  await db.schema
    .createTable("session_users")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("release", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("hour", "bigint", (c) => c.notNull())
    .addColumn("did_hash", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("session_users_pk", ["project_id", "release", "environment", "hour", "did_hash"])
    .execute();
}
