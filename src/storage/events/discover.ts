/**
 * Reads for Sentry's query API (`/organizations/{org}/events/`, `…/events-stats/`): the rows of one
 * dataset — events (errors), spans or log records — of some projects within a time window, newest
 * first, always bounded by `limit`. Equality conditions on indexed columns are applied here; the
 * rest (tags, text, grouping) by src/server/sentry-api/discover/evaluate.ts over what this returns.
 * The window is on `received_at`: the column the (project_id, received_at) indexes and PostgreSQL's
 * event partitions are keyed on.
 */
import type { Db } from "../db";
import { decodePayload, type EventRow, rowColumns, toRow } from "./events";

export interface DiscoverScan {
  projectIds: number[];
  start: number;
  end: number;
  limit: number;
}

/** Equalities storage applies (OR'ed values, AND'ed between keys). */
export interface ErrorEqualities {
  level?: string[];
  environment?: string[];
  release?: string[];
  issueId?: number[];
  traceId?: string[];
  eventId?: string[];
}

export interface DiscoverEvent extends EventRow {
  shortId: number;
  /** the decoded payload, when asked for */
  event: Record<string, unknown> | null;
}

export async function scanEvents(db: Db, q: DiscoverScan & { where: ErrorEqualities; payload: boolean }): Promise<DiscoverEvent[]> {
  if (q.projectIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("events")
    .innerJoin("issues", "issues.id", "events.issue_id")
    .select(rowColumns.map((c) => `events.${c}` as const))
    .select("issues.short_id")
    .where("events.project_id", "in", q.projectIds)
    .where("events.received_at", ">=", q.start)
    .where("events.received_at", "<=", q.end);
  const w = q.where;
  if (w.level?.length) query = query.where("events.level", "in", w.level);
  if (w.environment?.length) query = query.where("events.environment", "in", w.environment);
  if (w.release?.length) query = query.where("events.release", "in", w.release);
  if (w.issueId?.length) query = query.where("events.issue_id", "in", w.issueId);
  if (w.traceId?.length) query = query.where("events.trace_id", "in", w.traceId);
  if (w.eventId?.length) query = query.where("events.event_id", "in", w.eventId);
  const base = query.orderBy("events.received_at", "desc").orderBy("events.id", "desc").limit(q.limit);
  if (!q.payload) {
    const rows = await base.execute();
    return rows.map((r) => ({ ...toRow(r), shortId: Number(r.short_id), event: null }));
  }
  const rows = await base.select("events.payload").execute();
  return rows.map((r) => ({ ...toRow(r), shortId: Number(r.short_id), event: decodePayload(r.payload) }));
}

export interface DiscoverSpan {
  projectId: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  segmentName: string | null;
  name: string;
  op: string | null;
  status: string | null;
  start: number;
  end: number;
  attributes: string;
}

export async function scanSpans(db: Db, q: DiscoverScan & { traceId?: string[]; spanId?: string[] }): Promise<DiscoverSpan[]> {
  if (q.projectIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("spans")
    .select([
      "project_id",
      "trace_id",
      "span_id",
      "parent_span_id",
      "segment_name",
      "name",
      "op",
      "status",
      "start_ms",
      "end_ms",
      "attributes",
    ])
    .where("project_id", "in", q.projectIds)
    .where("received_at", ">=", q.start)
    .where("received_at", "<=", q.end);
  if (q.traceId?.length) query = query.where("trace_id", "in", q.traceId);
  if (q.spanId?.length) query = query.where("span_id", "in", q.spanId);
  const rows = await query.orderBy("received_at", "desc").orderBy("id", "desc").limit(q.limit).execute();
  return rows.map((r) => ({
    projectId: Number(r.project_id),
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
  }));
}

export interface DiscoverLog {
  id: number;
  projectId: number;
  traceId: string | null;
  spanId: string | null;
  timestamp: number;
  level: string;
  body: string;
  attributes: string;
  /** content hash (hex): the log's public item id is its first 32 characters */
  dedupe: string;
  receivedAt: number;
}

export async function scanLogs(db: Db, q: DiscoverScan & { traceId?: string[]; level?: string[] }): Promise<DiscoverLog[]> {
  if (q.projectIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("log_records")
    .select(["id", "project_id", "trace_id", "span_id", "timestamp", "level", "body", "attributes", "dedupe", "received_at"])
    .where("project_id", "in", q.projectIds)
    .where("received_at", ">=", q.start)
    .where("received_at", "<=", q.end);
  if (q.traceId?.length) query = query.where("trace_id", "in", q.traceId);
  if (q.level?.length) query = query.where("level", "in", q.level);
  const rows = await query.orderBy("received_at", "desc").orderBy("id", "desc").limit(q.limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    projectId: Number(r.project_id),
    traceId: r.trace_id,
    spanId: r.span_id,
    timestamp: Number(r.timestamp),
    level: r.level,
    body: r.body,
    attributes: r.attributes,
    dedupe: r.dedupe,
    receivedAt: Number(r.received_at),
  }));
}
