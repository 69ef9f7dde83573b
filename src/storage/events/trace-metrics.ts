/**
 * Metric samples (`Sentry.metrics`, migration 0050): written by the digest in the batch
 * transaction, read by the query API (`dataset=tracemetrics`), the trace page and its chart,
 * trimmed by retention like spans and logs (pipeline/trace-retention.ts).
 */
import { sql } from "kysely";
import type { MetricRecord } from "../../core/trace-metrics";
import type { Db } from "../db";
import { chunks, type Tx } from "../dialect";

export interface StoredMetric extends MetricRecord {
  /** content hash: the same sample delivered twice is stored once */
  dedupe: string;
}

export async function insertMetrics(tx: Tx, projectId: number, receivedAt: number, metrics: StoredMetric[]): Promise<void> {
  for (const part of chunks(metrics)) {
    await tx
      .insertInto("trace_metrics")
      .values(
        part.map((m) => ({
          project_id: projectId,
          trace_id: m.traceId,
          span_id: m.spanId,
          name: m.name,
          type: m.type,
          unit: m.unit,
          value: m.value,
          timestamp: m.timestamp,
          attributes: m.attributes,
          dedupe: m.dedupe,
          received_at: receivedAt,
        })),
      )
      .onConflict((oc) => oc.columns(["project_id", "dedupe"]).doNothing())
      .execute();
  }
}

export interface MetricRow extends MetricRecord {
  id: number;
  projectId: number;
  receivedAt: number;
}

const columns = [
  "id",
  "project_id",
  "trace_id",
  "span_id",
  "name",
  "type",
  "unit",
  "value",
  "timestamp",
  "attributes",
  "received_at",
] as const;

function toMetric(r: {
  id: number;
  project_id: number;
  trace_id: string | null;
  span_id: string | null;
  name: string;
  type: string;
  unit: string | null;
  value: number;
  timestamp: number;
  attributes: string;
  received_at: number;
}): MetricRow {
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    traceId: r.trace_id,
    spanId: r.span_id,
    name: r.name,
    type: r.type as MetricRecord["type"],
    unit: r.unit,
    value: Number(r.value),
    timestamp: Number(r.timestamp),
    attributes: r.attributes,
    receivedAt: Number(r.received_at),
  };
}

/** Samples of these projects in a window (by sample time), newest first, bounded. */
export async function scanMetrics(
  db: Db,
  q: { projectIds: number[]; start: number; end: number; limit: number; names?: string[]; traceIds?: string[] },
): Promise<MetricRow[]> {
  if (q.projectIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("trace_metrics")
    .select(columns)
    .where("project_id", "in", q.projectIds)
    .where("timestamp", ">=", q.start)
    .where("timestamp", "<=", q.end);
  if (q.names?.length) query = query.where("name", "in", q.names);
  if (q.traceIds?.length) query = query.where("trace_id", "in", q.traceIds);
  const rows = await query.orderBy("timestamp", "desc").orderBy("id", "desc").limit(q.limit).execute();
  return rows.map(toMetric);
}

/** The samples of one trace, oldest first. */
export async function traceMetrics(db: Db, projectIds: number[], traceId: string, limit: number): Promise<MetricRow[]> {
  if (projectIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom("trace_metrics")
    .select(columns)
    .where("project_id", "in", projectIds)
    .where("trace_id", "=", traceId)
    .orderBy("timestamp")
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map(toMetric);
}

export interface MetricName {
  name: string;
  type: string;
  unit: string | null;
  samples: number;
}

/** The metric names of these projects seen in a window, busiest first. */
export async function metricNames(db: Db, projectIds: number[], range: { start: number; end: number }, limit = 50): Promise<MetricName[]> {
  if (projectIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom("trace_metrics")
    .select(["name", "type", sql<string | null>`max(unit)`.as("unit"), sql<number>`count(*)`.as("n")])
    .where("project_id", "in", projectIds)
    .where("timestamp", ">=", range.start)
    .where("timestamp", "<=", range.end)
    .groupBy(["name", "type"])
    .orderBy(sql`count(*)`, "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ name: r.name, type: r.type, unit: r.unit, samples: Number(r.n) }));
}
