import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * Spans and logs (src/core/traces.ts), kept to explain errors and bounded like events. Keyed so a
 * queue row processed twice stores nothing twice: spans by (project, trace, span id), logs by a
 * hash of their content.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable("spans"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("trace_id", "text", (c) => c.notNull())
    .addColumn("span_id", "text", (c) => c.notNull())
    .addColumn("parent_span_id", "text")
    .addColumn("segment_name", "text")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("op", "text")
    .addColumn("status", "text")
    .addColumn("start_ms", "bigint", (c) => c.notNull())
    .addColumn("end_ms", "bigint", (c) => c.notNull())
    .addColumn("attributes", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("spans_project_trace_span", ["project_id", "trace_id", "span_id"])
    .execute();
  await db.schema.createIndex("spans_received").on("spans").columns(["received_at"]).execute();
  await db.schema.createIndex("spans_project_received").on("spans").columns(["project_id", "received_at"]).execute();

  await withId(db.schema.createTable("log_records"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("trace_id", "text")
    .addColumn("span_id", "text")
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("attributes", "text", (c) => c.notNull())
    .addColumn("dedupe", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("log_records_project_dedupe", ["project_id", "dedupe"])
    .execute();
  await db.schema.createIndex("log_records_project_trace").on("log_records").columns(["project_id", "trace_id"]).execute();
  await db.schema.createIndex("log_records_received").on("log_records").columns(["received_at"]).execute();
  await db.schema.createIndex("log_records_project_received").on("log_records").columns(["project_id", "received_at"]).execute();
}
