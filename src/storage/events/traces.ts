/**
 * Spans and logs (migration 0019): written by the digest in the batch transaction, read by the
 * issue page for the trace of the event shown, trimmed by retention like events.
 */
import type { LogRecord, SpanRecord } from "../../core/traces";
import type { Db } from "../db";
import { chunks, type Tx } from "../dialect";

export async function insertSpans(tx: Tx, projectId: number, receivedAt: number, spans: SpanRecord[]): Promise<void> {
  for (const part of chunks(spans)) {
    await tx
      .insertInto("spans")
      .values(
        part.map((s) => ({
          project_id: projectId,
          trace_id: s.traceId,
          span_id: s.spanId,
          parent_span_id: s.parentSpanId,
          segment_name: s.segmentName,
          name: s.name,
          op: s.op,
          status: s.status,
          start_ms: s.start,
          end_ms: s.end,
          attributes: s.attributes,
          received_at: receivedAt,
          segment: (s.segment ?? s.parentSpanId === null) ? 1 : 0,
        })),
      )
      .onConflict((oc) => oc.columns(["project_id", "trace_id", "span_id"]).doNothing())
      .execute();
  }
}

export interface StoredLog extends LogRecord {
  /** content hash: the same record delivered twice is stored once */
  dedupe: string;
}

export async function insertLogs(tx: Tx, projectId: number, receivedAt: number, logs: StoredLog[]): Promise<void> {
  for (const part of chunks(logs)) {
    await tx
      .insertInto("log_records")
      .values(
        part.map((l) => ({
          project_id: projectId,
          trace_id: l.traceId,
          span_id: l.spanId,
          timestamp: l.timestamp,
          level: l.level,
          body: l.body,
          attributes: l.attributes,
          dedupe: l.dedupe,
          received_at: receivedAt,
        })),
      )
      .onConflict((oc) => oc.columns(["project_id", "dedupe"]).doNothing())
      .execute();
  }
}

export interface TraceData {
  spans: SpanRecord[];
  /** with their row id, which identifies them in lists */
  logs: Array<LogRecord & { id: number }>;
  /** more spans or logs exist than were read */
  truncated: boolean;
}

/** The spans and logs of one trace in one project, oldest first, each list bounded. */
export async function readTrace(db: Db, projectId: number, traceId: string, limits = { spans: 500, logs: 200 }): Promise<TraceData> {
  const [spans, logs] = await Promise.all([
    db.kysely
      .selectFrom("spans")
      .select(["trace_id", "span_id", "parent_span_id", "segment_name", "name", "op", "status", "start_ms", "end_ms", "attributes"])
      .where("project_id", "=", projectId)
      .where("trace_id", "=", traceId)
      .orderBy("start_ms")
      .orderBy("id")
      .limit(limits.spans + 1)
      .execute(),
    db.kysely
      .selectFrom("log_records")
      .select(["id", "trace_id", "span_id", "timestamp", "level", "body", "attributes"])
      .where("project_id", "=", projectId)
      .where("trace_id", "=", traceId)
      .orderBy("timestamp")
      .orderBy("id")
      .limit(limits.logs + 1)
      .execute(),
  ]);
  return {
    truncated: spans.length > limits.spans || logs.length > limits.logs,
    spans: spans.slice(0, limits.spans).map((r) => ({
      traceId: r.trace_id,
      spanId: r.span_id,
      parentSpanId: r.parent_span_id,
      segmentName: r.segment_name,
      name: r.name,
      op: r.op,
      status: r.status,
      start: Number(r.start_ms),
      end: Number(r.end_ms),
      attributes: r.attributes,
    })),
    logs: logs.slice(0, limits.logs).map((r) => ({
      id: Number(r.id),
      traceId: r.trace_id,
      spanId: r.span_id,
      timestamp: Number(r.timestamp),
      level: r.level,
      body: r.body,
      attributes: r.attributes,
    })),
  };
}

export type TraceTable = "spans" | "log_records" | "trace_metrics";

/** Deletes up to `limit` rows of a project received before `cutoff`; returns how many. */
export async function deleteTraceRowsBefore(tx: Tx, table: TraceTable, projectId: number, cutoff: number, limit: number): Promise<number> {
  const ids = tx.selectFrom(table).select("id").where("project_id", "=", projectId).where("received_at", "<", cutoff).limit(limit);
  const res = await tx.deleteFrom(table).where("id", "in", ids).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** The `received_at` below which a project's rows exceed `cap` (null when within it). */
export async function traceCapCutoff(db: Db, table: TraceTable, projectId: number, cap: number): Promise<number | null> {
  const row = await db.kysely
    .selectFrom(table)
    .select("received_at")
    .where("project_id", "=", projectId)
    .orderBy("received_at", "desc")
    .offset(cap)
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.received_at) + 1 : null;
}
