/**
 * One trace across an organization's projects (issue 41): its spans, logs, errors and metric
 * samples, the counts Sentry's `trace-meta` answers, single items (Sentry's `trace-items/{id}`)
 * and the list of recent traces. Every read takes the project ids the caller may see (the service
 * decides them) and is bounded: a trace page never reads more than `limit` rows of a kind.
 * Indexes: spans (project_id, trace_id, span_id), log_records (project_id, trace_id),
 * events (project_id, trace_id) and trace_metrics (project_id, trace_id) (migrations 0019, 0050).
 */
import { type Compilable, sql } from "kysely";
import type { LogRecord, SpanRecord } from "../../core/traces";
import type { Db } from "../db";
import { decodePayload, type EventRow, rowColumns, toRow } from "./events";

export interface TraceSpanRow extends SpanRecord {
  projectId: number;
}

export interface TraceLogRow extends LogRecord {
  id: number;
  projectId: number;
  dedupe: string;
  receivedAt: number;
}

export interface TraceErrorRow extends EventRow {
  shortId: number;
  /** the decoded event (its trace context names the span it happened in) */
  event: Record<string, unknown>;
}

const spanColumns = [
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
] as const;

type SpanSelect = {
  project_id: number;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  segment_name: string | null;
  name: string;
  op: string | null;
  status: string | null;
  start_ms: number;
  end_ms: number;
  attributes: string;
};

function toSpan(r: SpanSelect): TraceSpanRow {
  return {
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
  };
}

/** A trace's span as its tree and waterfall read it: `attributes` are `{}` unless asked for. */
export interface TraceTreeSpan extends TraceSpanRow {
  /** the `sentry.sdk.name` attribute when it is a string, read with `sdkName: true`; "" otherwise */
  sdkName: string;
}

/** The attribute Sentry's trace tree reports per span (`sdk_name`). */
const SDK_NAME_KEY = "sentry.sdk.name";

/**
 * The `sentry.sdk.name` attribute as JSON text (null when absent), taken out by the database: the
 * attributes (up to 16 KB a span) then never cross to JavaScript to be parsed for one value.
 * Attributes are always written as JSON.stringify's output (core/traces.ts); SQLite still checks,
 * and PostgreSQL parses only the spans that name the key.
 */
function sdkNameJson(db: Db) {
  return db.dialect === "postgres"
    ? sql<string | null>`case when attributes like ${`%"${SDK_NAME_KEY}"%`} then (attributes::json -> ${SDK_NAME_KEY}::text)::text end`
    : sql<string | null>`case when json_valid(attributes) then attributes -> ${`$."${SDK_NAME_KEY}"`} end`;
}

function jsonString(json: string | null): string {
  if (!json?.startsWith('"')) return "";
  try {
    return JSON.parse(json) as string;
  } catch {
    return "";
  }
}

/**
 * The trace's spans in these projects, oldest first (index 0056 reads them in that order);
 * `limit + 1` are read to tell a cut. The columns the tree needs only: each of 5,000 spans'
 * values becomes a JavaScript string, so `attributes` (the largest) are read only when asked for
 * (Sentry's `additional_attributes`), and `sdkName` is extracted in SQL.
 */
export async function traceSpans(
  db: Db,
  projectIds: number[],
  traceId: string,
  limit: number,
  opts: { attributes?: boolean; sdkName?: boolean } = {},
): Promise<TraceTreeSpan[]> {
  if (projectIds.length === 0) return [];
  const query = db.kysely
    .selectFrom("spans")
    .select(["project_id", "span_id", "parent_span_id", "segment_name", "name", "op", "status", "start_ms", "end_ms"])
    .select(opts.attributes === true ? "attributes" : sql<string>`'{}'`.as("attributes"))
    .select(opts.sdkName === true ? sdkNameJson(db).as("sdk_name") : sql<string | null>`null`.as("sdk_name"))
    .where("trace_id", "=", traceId)
    .where("project_id", "in", projectIds)
    .orderBy("start_ms")
    .orderBy("id")
    .limit(limit + 1);
  const rows = await rowArrays(db, query);
  return rows.map(([projectId, spanId, parentSpanId, segmentName, name, op, status, start, end, attributes, sdkName]) => ({
    projectId: Number(projectId),
    traceId,
    spanId: spanId as string,
    parentSpanId: parentSpanId as string | null,
    segmentName: segmentName as string | null,
    name: name as string,
    op: op as string | null,
    status: status as string | null,
    start: Number(start),
    end: Number(end),
    attributes: attributes as string,
    sdkName: jsonString(sdkName as string | null),
  }));
}

/**
 * A query's rows as arrays of values in select order. On SQLite straight from the statement:
 * better-sqlite3 otherwise builds a keyed object per row, which at 5,000 spans took longer than the
 * query itself (objects 25-38 ms, arrays 16-22 ms, SQL 2-4 ms, on a loaded machine). PostgreSQL's
 * driver builds its objects either way (an array row mode saved ~13 %, not worth a second path).
 */
async function rowArrays(db: Db, query: Compilable & { execute(): Promise<object[]> }): Promise<unknown[][]> {
  if (!db.sqlite) return (await query.execute()).map((r) => Object.values(r));
  const { sql: text, parameters } = query.compile();
  return db.sqlite
    .prepare(text)
    .raw(true)
    .all(...parameters) as unknown[][];
}

function toLog(r: {
  id: number;
  project_id: number;
  trace_id: string | null;
  span_id: string | null;
  timestamp: number;
  level: string;
  body: string;
  attributes: string;
  dedupe: string;
  received_at: number;
}): TraceLogRow {
  return {
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
  };
}

const logColumns = [
  "id",
  "project_id",
  "trace_id",
  "span_id",
  "timestamp",
  "level",
  "body",
  "attributes",
  "dedupe",
  "received_at",
] as const;

/** The trace's logs in these projects, by time (newest first with `desc`), paged by offset. */
export async function traceLogs(
  db: Db,
  projectIds: number[],
  traceIds: string[],
  q: { limit: number; offset?: number; desc?: boolean; start?: number; end?: number },
): Promise<TraceLogRow[]> {
  if (projectIds.length === 0 || traceIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("log_records")
    .select(logColumns)
    .where("project_id", "in", projectIds)
    .where("trace_id", "in", traceIds);
  if (q.start !== undefined) query = query.where("timestamp", ">=", q.start);
  if (q.end !== undefined) query = query.where("timestamp", "<=", q.end);
  const dir = q.desc ? "desc" : "asc";
  const rows = await query
    .orderBy("timestamp", dir)
    .orderBy("id", dir)
    .limit(q.limit)
    .offset(q.offset ?? 0)
    .execute();
  return rows.map(toLog);
}

/** The error events of the trace in these projects, oldest first, with their issue's short id. */
export async function traceErrors(db: Db, projectIds: number[], traceId: string, limit: number): Promise<TraceErrorRow[]> {
  if (projectIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom("events")
    .innerJoin("issues", "issues.id", "events.issue_id")
    .select(rowColumns.map((c) => `events.${c}` as const))
    .select(["issues.short_id", "events.payload"])
    .where("events.project_id", "in", projectIds)
    .where("events.trace_id", "=", traceId)
    .orderBy("events.timestamp")
    .orderBy("events.id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...toRow(r), shortId: Number(r.short_id), event: decodePayload(r.payload) }));
}

export interface TraceCounts {
  spans: number;
  /** spans per `op` (Sentry's `spansCountMap`) */
  spansByOp: Record<string, number>;
  logs: number;
  errors: number;
  metrics: number;
}

/** What Sentry's `trace-meta` counts: spans (per op), logs, errors and metric samples of the trace. */
export async function traceCounts(db: Db, projectIds: number[], traceId: string): Promise<TraceCounts> {
  if (projectIds.length === 0) return { spans: 0, spansByOp: {}, logs: 0, errors: 0, metrics: 0 };
  const count = (table: "log_records" | "events" | "trace_metrics") =>
    db.kysely
      .selectFrom(table)
      .select(sql<number>`count(*)`.as("n"))
      .where("project_id", "in", projectIds)
      .where("trace_id", "=", traceId)
      .executeTakeFirst()
      .then((r) => Number(r?.n ?? 0));
  const [ops, logs, errors, metrics] = await Promise.all([
    db.kysely
      .selectFrom("spans")
      .select(["op", sql<number>`count(*)`.as("n")])
      .where("project_id", "in", projectIds)
      .where("trace_id", "=", traceId)
      .groupBy("op")
      .execute(),
    count("log_records"),
    count("events"),
    count("trace_metrics"),
  ]);
  const spansByOp: Record<string, number> = {};
  let spans = 0;
  for (const r of ops) {
    const n = Number(r.n);
    spans += n;
    const op = r.op ?? "default";
    spansByOp[op] = (spansByOp[op] ?? 0) + n;
  }
  return { spans, spansByOp, logs, errors, metrics };
}

/** One span of a project's trace (Sentry's `trace-items/{span id}?item_type=spans`). */
export async function findTraceSpan(db: Db, projectId: number, traceId: string, spanId: string): Promise<TraceSpanRow | undefined> {
  const r = await db.kysely
    .selectFrom("spans")
    .select(spanColumns)
    .where("project_id", "=", projectId)
    .where("trace_id", "=", traceId)
    .where("span_id", "=", spanId)
    .executeTakeFirst();
  return r ? toSpan(r) : undefined;
}

/** One log of some projects by its public id (the first 32 hex characters of its content hash). */
export async function findTraceLog(db: Db, projectIds: number[], traceId: string | null, itemId: string): Promise<TraceLogRow | undefined> {
  if (projectIds.length === 0) return undefined;
  let q = db.kysely
    .selectFrom("log_records")
    .select(logColumns)
    .where("project_id", "in", projectIds)
    .where("dedupe", ">=", itemId)
    .where("dedupe", "<", `${itemId}g`);
  if (traceId) q = q.where("trace_id", "=", traceId);
  const r = await q.limit(1).executeTakeFirst();
  return r ? toLog(r) : undefined;
}

export interface TraceListRow {
  traceId: string;
  projectId: number;
  /** the root span (a segment without a parent here) */
  rootName: string;
  rootOp: string | null;
  segmentName: string | null;
  start: number;
  end: number;
}

export interface TraceListQuery {
  projectIds: number[];
  /** by span start, epoch ms */
  start: number;
  end: number;
  /** exact transaction (segment) name */
  transaction?: string;
  /** root duration at least, ms */
  minDuration?: number;
  /** only these traces (the "has errors" filter names them) */
  traceIds?: string[];
  limit: number;
  offset: number;
}

/**
 * Recent traces, newest first: the segments (transactions, services' entry spans) that start in
 * these projects. A trace started in a project the viewer cannot see is listed by the segments
 * they can see (their service's part of it); one spanning two visible services, once per segment.
 */
export async function listTraceRoots(db: Db, q: TraceListQuery): Promise<TraceListRow[]> {
  if (q.projectIds.length === 0 || (q.traceIds && q.traceIds.length === 0)) return [];
  let query = db.kysely
    .selectFrom("spans")
    .select(["trace_id", "project_id", "name", "op", "segment_name", "start_ms", "end_ms"])
    .where("project_id", "in", q.projectIds)
    .where("segment", "=", 1)
    .where("start_ms", ">=", q.start)
    .where("start_ms", "<=", q.end);
  if (q.transaction)
    query = query.where((eb) => eb.or([eb("segment_name", "=", q.transaction as string), eb("name", "=", q.transaction as string)]));
  if (q.minDuration !== undefined) query = query.where(sql<boolean>`end_ms - start_ms >= ${q.minDuration}`);
  if (q.traceIds) query = query.where("trace_id", "in", q.traceIds);
  const rows = await query.orderBy("start_ms", "desc").orderBy("id", "desc").limit(q.limit).offset(q.offset).execute();
  return rows.map((r) => ({
    traceId: r.trace_id,
    projectId: Number(r.project_id),
    rootName: r.name,
    rootOp: r.op,
    segmentName: r.segment_name,
    start: Number(r.start_ms),
    end: Number(r.end_ms),
  }));
}

export interface TraceSummaryRow {
  traceId: string;
  spans: number;
  start: number;
  end: number;
  projectIds: number[];
}

/** Span counts, extent and projects of some traces (the list's columns). */
export async function summarizeTraces(db: Db, projectIds: number[], traceIds: string[]): Promise<Map<string, TraceSummaryRow>> {
  const out = new Map<string, TraceSummaryRow>();
  if (projectIds.length === 0 || traceIds.length === 0) return out;
  const rows = await db.kysely
    .selectFrom("spans")
    .select(["trace_id", "project_id", sql<number>`count(*)`.as("n"), sql<number>`min(start_ms)`.as("s"), sql<number>`max(end_ms)`.as("e")])
    .where("project_id", "in", projectIds)
    .where("trace_id", "in", traceIds)
    .groupBy(["trace_id", "project_id"])
    .execute();
  for (const r of rows) {
    const cur = out.get(r.trace_id) ?? { traceId: r.trace_id, spans: 0, start: Number(r.s), end: Number(r.e), projectIds: [] };
    cur.spans += Number(r.n);
    cur.start = Math.min(cur.start, Number(r.s));
    cur.end = Math.max(cur.end, Number(r.e));
    cur.projectIds.push(Number(r.project_id));
    out.set(r.trace_id, cur);
  }
  return out;
}

/** Error events per trace among some traces. */
export async function errorCountsOf(db: Db, projectIds: number[], traceIds: string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0 || traceIds.length === 0) return new Map();
  const rows = await db.kysely
    .selectFrom("events")
    .select(["trace_id", sql<number>`count(*)`.as("n")])
    .where("project_id", "in", projectIds)
    .where("trace_id", "in", traceIds)
    .groupBy("trace_id")
    .execute();
  return new Map(rows.map((r) => [r.trace_id as string, Number(r.n)]));
}

/** Traces with errors in a window (newest events first): the "has errors" filter. */
export async function tracesWithErrors(
  db: Db,
  projectIds: number[],
  range: { start: number; end: number },
  limit: number,
): Promise<string[]> {
  if (projectIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom("events")
    .select("trace_id")
    .distinct()
    .where("project_id", "in", projectIds)
    .where("trace_id", "is not", null)
    .where("received_at", ">=", range.start)
    .where("received_at", "<=", range.end + 3_600_000)
    .limit(limit)
    .execute();
  return rows.map((r) => r.trace_id as string);
}
