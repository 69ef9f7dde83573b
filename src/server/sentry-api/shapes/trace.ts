/**
 * Sentry's trace shapes (getsentry/sentry-api-schema, `organization_trace.py`, `trace-meta`,
 * `trace-logs`, `trace-items/{id}`), as the `sentry` CLI and the MCP server read them:
 *  - `trace/{id}/`: a list of root spans, each `{…, children: [span…], errors: [issue…],
 *    occurrences: []}`, and the errors that sit on no kept span as top-level items;
 *  - `trace-meta/{id}/`: counts (camelCase, as the document has them);
 *  - `trace-logs/`: eight fixed columns per log;
 *  - `trace-items/{id}/`: `{itemId, timestamp, attributes: [{name, type, value}], meta, links}`.
 * Times are epoch seconds (floats) in spans and errors, durations milliseconds. Pure.
 */
import { segmentRoots } from "../../../core/traces";
import type { TraceErrorRow, TraceLogRow, TraceSpanRow, TraceTreeSpan } from "../../../storage/events/trace-reads";

type Obj = Record<string, unknown>;

export function parseAttributes(json: string): Obj {
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {};
  } catch {
    return {};
  }
}

const secs = (ms: number) => ms / 1000;

/** Sentry's ErrorGroupType id: every Errata issue from an error event is one. */
const ERROR_ISSUE_TYPE = 1;

export interface TraceErrorInput {
  row: TraceErrorRow;
  projectSlug: string;
  shortId: string;
  transaction: string;
}

export function sentryTraceError(e: TraceErrorInput) {
  return {
    description: e.row.title,
    event_id: e.row.eventId,
    project_id: e.row.projectId,
    project_slug: e.projectSlug,
    transaction: e.transaction,
    event_type: "error",
    issue_id: e.row.issueId,
    level: e.row.level,
    start_timestamp: secs(e.row.timestamp),
    end_timestamp: secs(e.row.timestamp),
    culprit: e.row.culprit,
    short_id: e.shortId,
    issue_type: ERROR_ISSUE_TYPE,
  };
}

export type SentryTraceError = ReturnType<typeof sentryTraceError>;

export interface SentryTraceSpan {
  children: SentryTraceSpan[];
  errors: SentryTraceError[];
  occurrences: never[];
  event_id: string;
  span_id: string;
  transaction_id: string;
  project_id: number;
  project_slug: string;
  profile_id: string;
  profiler_id: string;
  parent_span_id: string | null;
  start_timestamp: number;
  end_timestamp: number;
  timestamp: number;
  duration: number;
  measurements: Record<string, number>;
  browser_web_vital: Record<string, number>;
  mobile_app_vital: Record<string, number>;
  op: string;
  name: string;
  description: string;
  status: string | null;
  transaction: string;
  is_transaction: boolean;
  sdk_name: string;
  event_type: "span";
  additional_attributes?: Obj;
}

/**
 * The trace tree: spans nested under their parents (roots by start time), each error on the span
 * it happened in; errors on no kept span come after the roots. Linear in the spans: each span's
 * segment root and whether it sits on a parent cycle are worked out once for the whole trace,
 * and no attributes are parsed unless `additionalAttributes` names some (5,000 spans, issue 43).
 */
export function sentryTraceTree(
  spans: TraceTreeSpan[],
  errors: Array<TraceErrorInput & { spanId: string | null }>,
  slugOf: (projectId: number) => string,
  additionalAttributes: string[],
): Array<SentryTraceSpan | SentryTraceError> {
  const rootOf = segmentRoots(spans);
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const cyclic = onParentCycles(byId);
  const nodes = new Map<string, SentryTraceSpan>();
  for (const s of spans) {
    const root = byId.get(rootOf.get(s.spanId) ?? s.spanId) ?? s;
    const node: SentryTraceSpan = {
      children: [],
      errors: [],
      occurrences: [],
      event_id: s.spanId,
      span_id: s.spanId,
      transaction_id: root.spanId,
      project_id: s.projectId,
      project_slug: slugOf(s.projectId),
      profile_id: "",
      profiler_id: "",
      parent_span_id: s.parentSpanId,
      start_timestamp: secs(s.start),
      end_timestamp: secs(s.end),
      timestamp: secs(s.end),
      duration: s.end - s.start,
      measurements: {},
      browser_web_vital: {},
      mobile_app_vital: {},
      op: s.op ?? "default",
      name: s.name,
      description: s.name,
      status: s.status,
      transaction: s.segmentName ?? root.segmentName ?? root.name,
      is_transaction: root === s,
      sdk_name: s.sdkName,
      event_type: "span",
    };
    if (additionalAttributes.length > 0) {
      const attrs = parseAttributes(s.attributes);
      node.additional_attributes = Object.fromEntries(additionalAttributes.filter((a) => a in attrs).map((a) => [a, attrs[a]]));
    }
    nodes.set(s.spanId, node);
  }
  const roots: SentryTraceSpan[] = [];
  // Spans arrive oldest first: children end up ordered by start as well. A span whose parent
  // chain comes back to it stays a root (hanging it would close the cycle).
  for (const s of spans) {
    const node = nodes.get(s.spanId) as SentryTraceSpan;
    const parent = s.parentSpanId && s.parentSpanId !== s.spanId ? nodes.get(s.parentSpanId) : undefined;
    const closesCycle = byId.get(s.spanId) === s ? cyclic.has(s.spanId) : isAncestor(node, s.parentSpanId as string, byId);
    if (parent && !closesCycle) parent.children.push(node);
    else roots.push(node);
  }
  const loose: SentryTraceError[] = [];
  for (const e of errors) {
    const on = e.spanId ? nodes.get(e.spanId) : undefined;
    if (on) on.errors.push(sentryTraceError(e));
    else loose.push(sentryTraceError(e));
  }
  return [...roots, ...loose];
}

type ParentLinks = ReadonlyMap<string, { parentSpanId: string | null }>;

/**
 * The span ids on a cycle of parent links (a span whose parent chain comes back to it), in one
 * walk over all spans: each chain is followed until it reaches a span already settled or one on
 * the path being walked, which closes a cycle.
 */
function onParentCycles(byId: ParentLinks): Set<string> {
  const settled = new Set<string>();
  const cyclic = new Set<string>();
  for (const start of byId.keys()) {
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let cur: string | null = start;
    while (cur !== null && byId.has(cur) && !settled.has(cur) && !onPath.has(cur)) {
      onPath.set(cur, path.length);
      path.push(cur);
      cur = byId.get(cur)?.parentSpanId ?? null;
    }
    const from = cur === null ? undefined : onPath.get(cur);
    if (from !== undefined) for (const id of path.slice(from)) cyclic.add(id);
    for (const id of path) settled.add(id);
  }
  return cyclic;
}

/** Would hanging `node` under `parentId` close a cycle? (A span id stored twice: walked as before.) */
function isAncestor(node: SentryTraceSpan, parentId: string, byId: ParentLinks): boolean {
  let cur: string | null = parentId;
  for (let i = 0; cur && i <= byId.size; i++) {
    if (cur === node.span_id) return true;
    cur = byId.get(cur)?.parentSpanId ?? null;
  }
  return false;
}

export function sentryTraceMeta(
  counts: { spans: number; spansByOp: Record<string, number>; logs: number; errors: number; metrics: number },
  spans: TraceSpanRow[],
  includeUptime: boolean,
) {
  const rootOf = segmentRoots(spans);
  const children = new Map<string, number>();
  for (const s of spans) {
    const root = rootOf.get(s.spanId) ?? s.spanId;
    children.set(root, (children.get(root) ?? 0) + (root === s.spanId ? 0 : 1));
  }
  return {
    errorsCount: counts.errors,
    logsCount: counts.logs,
    metricsCount: counts.metrics,
    performanceIssuesCount: 0,
    spansCount: counts.spans,
    spansCountMap: counts.spansByOp,
    transactionChildCountMap: [...children.entries()].map(([id, n]) => ({ "transaction.event_id": id, "count()": n })),
    ...(includeUptime ? { uptimeCount: 0 } : {}),
  };
}

/** OpenTelemetry severity numbers Sentry reports for each level. */
export const SEVERITY_NUMBER: Record<string, number> = { trace: 1, debug: 5, info: 9, warn: 13, warning: 13, error: 17, fatal: 21 };

/** A log's public id: its content hash, 32 hex characters as Sentry's item ids. */
export function logItemId(dedupe: string): string {
  return dedupe.slice(0, 32).padEnd(32, "0");
}

export const TRACE_LOG_META = {
  fields: {
    id: "string",
    "project.id": "integer",
    trace: "string",
    severity_number: "integer",
    severity: "string",
    timestamp: "date",
    timestamp_precise: "integer",
    message: "string",
  },
  // Only the columns that have a unit (the `sentry` CLI reads units as strings).
  units: { timestamp_precise: "nanosecond" },
};

export function sentryTraceLog(l: TraceLogRow) {
  return {
    id: logItemId(l.dedupe),
    "project.id": l.projectId,
    trace: l.traceId,
    severity_number: SEVERITY_NUMBER[l.level.toLowerCase()] ?? 9,
    severity: l.level,
    timestamp: new Date(l.timestamp).toISOString(),
    timestamp_precise: l.timestamp * 1_000_000,
    message: l.body,
  };
}

type Attribute =
  | { name: string; type: "str"; value: string }
  | { name: string; type: "int"; value: number }
  | { name: string; type: "float"; value: number }
  | { name: string; type: "bool"; value: boolean }
  | { name: string; type: "array"; value: unknown[] };

function attribute(name: string, value: unknown): Attribute | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return { name, type: "str", value };
  if (typeof value === "boolean") return { name, type: "bool", value };
  if (typeof value === "number") return Number.isInteger(value) ? { name, type: "int", value } : { name, type: "float", value };
  if (Array.isArray(value)) return { name, type: "array", value };
  return { name, type: "str", value: JSON.stringify(value) };
}

/** Sentry's public names for the SDK's own log attributes. */
const LOG_ALIASES: Record<string, string> = {
  "sentry.environment": "environment",
  "sentry.release": "release",
  "sentry.sdk.name": "sdk.name",
  "sentry.sdk.version": "sdk.version",
};

function attributeList(core: Array<[string, unknown]>, stored: Obj, aliases: Record<string, string> = {}): Attribute[] {
  const seen = new Set<string>();
  const out: Attribute[] = [];
  for (const [name, value] of [...core, ...Object.entries(stored).map(([k, v]) => [aliases[k] ?? k, v] as [string, unknown])]) {
    if (seen.has(name)) continue;
    const a = attribute(name, value);
    if (!a) continue;
    seen.add(name);
    out.push(a);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function sentryLogItem(l: TraceLogRow, projectSlug: string) {
  const core: Array<[string, unknown]> = [
    ["sentry.item_id", logItemId(l.dedupe)],
    ["message", l.body],
    ["severity", l.level],
    ["severity_number", SEVERITY_NUMBER[l.level.toLowerCase()] ?? 9],
    ["trace", l.traceId],
    ["span_id", l.spanId],
    ["project", projectSlug],
    ["project_id", l.projectId],
    ["timestamp_precise", l.timestamp * 1_000_000],
  ];
  return {
    itemId: logItemId(l.dedupe),
    timestamp: new Date(l.timestamp).toISOString(),
    attributes: attributeList(core, parseAttributes(l.attributes), LOG_ALIASES),
    meta: {},
    links: null,
  };
}

export function sentrySpanItem(s: TraceSpanRow, projectSlug: string, isTransaction: boolean) {
  const core: Array<[string, unknown]> = [
    ["span_id", s.spanId],
    ["trace", s.traceId],
    ["parent_span", s.parentSpanId],
    ["span.op", s.op],
    ["span.name", s.name],
    ["span.description", s.name],
    ["span.status", s.status],
    ["span.duration", s.end - s.start],
    ["transaction", s.segmentName],
    ["is_transaction", isTransaction],
    ["project", projectSlug],
    ["project_id", s.projectId],
    ["precise.start_ts", s.start / 1000],
    ["precise.finish_ts", s.end / 1000],
  ];
  return {
    itemId: s.spanId,
    timestamp: new Date(s.start).toISOString(),
    attributes: attributeList(core, parseAttributes(s.attributes)),
    meta: {},
    links: null,
  };
}
