import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * The trace page and Sentry's trace endpoints (issue 41):
 *  - `events (project_id, trace_id)`: the errors of one trace across the viewer's projects
 *    (partial: most installations have many events without a trace). On PostgreSQL every weekly
 *    partition gets its own copy.
 *  - `trace_metrics`: what `Sentry.metrics` sends (`trace_metric` items): counters, gauges and
 *    distributions, one row per sample, keyed by name and attributes, bounded like spans and logs
 *    (retention and the per-project cap). Keyed by a content hash so a queue row processed twice
 *    stores nothing twice.
 *  - `issues.platform`: Sentry takes an issue's platform from its first event; issues made before
 *    this migration keep answering their project's.
 *  - `spans.segment`: the span starts a segment (a transaction's root, a service's entry span):
 *    the trace list reads these, newest first per project. Spans kept before it: those without a
 *    parent.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await sql`CREATE INDEX events_project_trace ON events (project_id, trace_id) WHERE trace_id IS NOT NULL`.execute(db);

  await withId(db.schema.createTable("trace_metrics"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("trace_id", "text")
    .addColumn("span_id", "text")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("unit", "text")
    .addColumn("value", dialect === "postgres" ? "double precision" : "real", (c) => c.notNull())
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .addColumn("attributes", "text", (c) => c.notNull())
    .addColumn("dedupe", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("trace_metrics_project_dedupe", ["project_id", "dedupe"])
    .execute();
  await db.schema.createIndex("trace_metrics_project_name").on("trace_metrics").columns(["project_id", "name", "timestamp"]).execute();
  await db.schema.createIndex("trace_metrics_project_trace").on("trace_metrics").columns(["project_id", "trace_id"]).execute();
  await db.schema.createIndex("trace_metrics_received").on("trace_metrics").columns(["received_at"]).execute();
  await db.schema.createIndex("trace_metrics_project_received").on("trace_metrics").columns(["project_id", "received_at"]).execute();

  await db.schema.alterTable("issues").addColumn("platform", "text").execute();

  await db.schema
    .alterTable("spans")
    .addColumn("segment", "smallint", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE spans SET segment = 1 WHERE parent_span_id IS NULL`.execute(db);
  await db.schema.createIndex("spans_project_segment_start").on("spans").columns(["project_id", "segment", "start_ms"]).execute();
}
