/**
 * The trace page (`/{org}/traces/{traceId}`) and the trace list (`/{org}/traces`): every span of a
 * trace across the viewer's projects as a waterfall, the errors and logs placed on their spans,
 * the services and transactions involved, the trace's metric samples, and the replays that share
 * the trace. Authorization: `event.read` in the org; only the viewer's projects are read
 * (load-trace.ts), so a member sees the part of a trace their teams' projects hold.
 */
import { AppError } from "../../core/errors";
import { autogroup, type SpanRecord, segmentRoots, type WaterfallRow, waterfall } from "../../core/traces";
import { metricNames, scanMetrics, traceMetrics } from "../../storage/events/trace-metrics";
import {
  errorCountsOf,
  findTraceLog,
  findTraceSpan,
  listTraceRoots,
  summarizeTraces,
  traceLogs,
  tracesWithErrors,
} from "../../storage/events/trace-reads";
import { replayIdsOfTrace } from "../../storage/replays/replay-search";
import type { Viewer } from "../types";
import { errorSpanId, loadTrace, TRACE_LIMITS, type TraceDeps, traceScope } from "./load-trace";

export interface TracePageError {
  eventId: string;
  issueId: number;
  shortId: string;
  title: string;
  culprit: string;
  level: string;
  projectSlug: string;
  at: number;
  /** the span it happened in, when that span was kept */
  spanId: string | null;
}

export interface TracePageLog {
  key: string;
  at: number;
  level: string;
  body: string;
  projectSlug: string;
  /** the span it was written in, when that span was kept */
  spanId: string | null;
}

export interface TracePageRow {
  spanId: string;
  projectSlug: string;
  name: string;
  op: string | null;
  status: string | null;
  /** where the span sits: ms from the trace's start, and its duration */
  offset: number;
  duration: number;
  depth: number;
  /** fractions of the trace's duration (0..1) */
  left: number;
  width: number;
  /** a segment root (a transaction, or a service's entry span) */
  root: boolean;
  errors: number;
  logs: number;
  /** a run of alike siblings folded into this row (Sentry's autogrouping): how many, and all spans under it */
  group: { count: number; spans: number } | null;
}

export interface TracePageMetric {
  name: string;
  type: string;
  unit: string | null;
  samples: Array<{ at: number; value: number; spanId: string | null }>;
}

export interface TracePage {
  traceId: string;
  start: number;
  end: number;
  rows: TracePageRow[];
  errors: TracePageError[];
  logs: TracePageLog[];
  services: Array<{ slug: string; platform: string; spans: number; errors: number }>;
  transactions: Array<{ name: string; projectSlug: string; duration: number; spanId: string }>;
  /** replay ids named by the trace's errors and logs, and stored replays that recorded the trace */
  replayIds: string[];
  /** of those, the replays stored in a project the viewer sees (the page links them to the player) */
  storedReplayIds: string[];
  metrics: TracePageMetric[];
  truncated: { spans: boolean; logs: boolean };
  /** spans in the trace (read), and rows left out of the waterfall beyond MAX_ROWS (`all` shows them) */
  spanCount: number;
  rowsLeftOut: number;
  /** the selected span's attributes (`?span=`), parsed, when it is in the trace */
  selected: { spanId: string; attributes: Record<string, unknown> } | null;
}

export interface TraceListFilters {
  /** a project slug (Sentry's "service") */
  service?: string;
  transaction?: string;
  /** root duration at least, ms */
  minDuration?: number;
  hasErrors?: boolean;
  /** the window, from now */
  period: number;
  cursor: number;
}

export interface TraceListItem {
  traceId: string;
  rootName: string;
  rootOp: string | null;
  projectSlug: string;
  start: number;
  duration: number;
  spans: number;
  errors: number;
  services: string[];
}

export interface TraceList {
  items: TraceListItem[];
  next: number | null;
  services: string[];
  /** the metric names seen in the window, and the chosen one's series (bucketed) */
  metricNames: Array<{ name: string; type: string; unit: string | null; samples: number }>;
  chart: { name: string; type: string; unit: string | null; buckets: Array<{ at: number; value: number | null }> } | null;
}

export interface TracePageServices {
  /** The trace page's model; not_found when the viewer sees nothing of the trace. */
  trace(
    viewer: Viewer,
    orgSlug: string,
    traceId: string,
    opts?: { span?: string | null; expand?: readonly string[]; all?: boolean },
  ): Promise<TracePage>;
  list(viewer: Viewer, orgSlug: string, filters: TraceListFilters, metric?: string | null): Promise<TraceList>;
  /** The trace a log belongs to, by the log's public id (Sentry's `logsPinned=`); null when not found. */
  findLog(viewer: Viewer, orgSlug: string, itemId: string): Promise<{ traceId: string; key: string } | null>;
}

const PAGE = 50;
/** Waterfall rows drawn at most (after grouping) unless all are asked for: the page stays fast. */
export const MAX_ROWS = 1_500;
const BUCKETS = 48;

function parseObject(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The waterfall's rows: runs of alike siblings folded (unless expanded; the selected span's run
 * always opens), then at most MAX_ROWS unless `all`.
 */
function foldRows(
  rows: WaterfallRow[],
  total: number,
  opts: { span?: string | null; expand?: readonly string[]; all?: boolean },
  f: {
    alike(a: WaterfallRow, b: WaterfallRow): boolean;
    keep(r: WaterfallRow): boolean;
    row(r: WaterfallRow): TracePageRow;
    logs(r: WaterfallRow): number;
  },
) {
  const expanded = new Set(opts.expand ?? []);
  const rules = { id: (r: WaterfallRow) => r.span.spanId, alike: f.alike, keep: f.keep };
  let grouped = autogroup(rows, rules, expanded);
  const selected = opts.span?.toLowerCase();
  const holding = selected ? grouped.find((g) => g.kind === "group" && g.hidden.some((h) => h.span.spanId === selected)) : undefined;
  if (holding && holding.kind === "group") grouped = autogroup(rows, rules, new Set([...expanded, holding.first.span.spanId]));
  const drawn = opts.all ? grouped : grouped.slice(0, MAX_ROWS);
  const out: TracePageRow[] = drawn.map((g) => {
    if (g.kind === "span") return f.row(g.row);
    // The run's extent on the time axis, from its first start to its last end.
    return {
      ...f.row(g.first),
      left: g.left,
      width: g.width,
      offset: g.left * total,
      duration: g.width * total,
      logs: g.hidden.reduce((a, h) => a + f.logs(h), 0),
      group: { count: g.count, spans: g.hidden.length },
    };
  });
  return { rows: out, left: grouped.length - drawn.length };
}

function replayIdOf(v: unknown): string | null {
  return typeof v === "string" && /^[0-9a-f]{32}$/i.test(v.replace(/-/g, "")) ? v.replace(/-/g, "").toLowerCase() : null;
}

export function createTracePageServices(deps: TraceDeps): TracePageServices {
  return {
    async findLog(viewer, orgSlug, itemId) {
      const scope = await traceScope(deps, viewer, orgSlug);
      const id = itemId.replace(/-/g, "").toLowerCase();
      if (!/^[0-9a-f]{32}$/.test(id)) return null;
      const log = await findTraceLog(deps.db, scope.projectIds, null, id);
      return log?.traceId ? { traceId: log.traceId, key: String(log.id) } : null;
    },

    async trace(viewer, orgSlug, rawTraceId, opts = {}) {
      // Attributes are read for the selected span only: 5,000 spans' JSON would be most of the read.
      const t = await loadTrace(deps, viewer, orgSlug, rawTraceId);
      const slug = (projectId: number) => t.projects.get(projectId)?.slug ?? "unknown";
      const [logRows, metricRows] = await Promise.all([
        traceLogs(deps.db, t.projectIds, [t.traceId], { limit: TRACE_LIMITS.logs + 1 }),
        traceMetrics(deps.db, t.projectIds, t.traceId, TRACE_LIMITS.metrics),
      ]);
      if (t.spans.length === 0 && t.errors.length === 0 && logRows.length === 0) throw new AppError("not_found", "Trace not found.");
      const spanIds = new Set(t.spans.map((s) => s.spanId));
      const errors: TracePageError[] = t.errors.map((e) => {
        const spanId = errorSpanId(e);
        return {
          eventId: e.eventId,
          issueId: e.issueId,
          shortId: `${slug(e.projectId).toUpperCase()}-${e.shortId}`,
          title: e.title,
          culprit: e.culprit,
          level: e.level,
          projectSlug: slug(e.projectId),
          at: e.timestamp,
          spanId: spanId && spanIds.has(spanId) ? spanId : null,
        };
      });
      const logsTruncated = logRows.length > TRACE_LIMITS.logs;
      const logs: TracePageLog[] = logRows.slice(0, TRACE_LIMITS.logs).map((l) => ({
        key: String(l.id),
        at: l.timestamp,
        level: l.level,
        body: l.body,
        projectSlug: slug(l.projectId),
        spanId: l.spanId && spanIds.has(l.spanId) ? l.spanId : null,
      }));
      const errorsOn = new Map<string, number>();
      for (const e of errors) if (e.spanId) errorsOn.set(e.spanId, (errorsOn.get(e.spanId) ?? 0) + 1);
      const logsOn = new Map<string, number>();
      for (const l of logs) if (l.spanId) logsOn.set(l.spanId, (logsOn.get(l.spanId) ?? 0) + 1);

      const projectOf = new Map(t.spans.map((s) => [s.spanId, s.projectId]));
      const rootOf = segmentRoots(t.spans);
      const { rows, start: wStart, end: wEnd } = waterfall(t.spans as SpanRecord[]);
      const times = [...errors.map((e) => e.at), ...logs.map((l) => l.at)];
      const start = rows.length > 0 ? wStart : Math.min(...times);
      const end = rows.length > 0 ? wEnd : Math.max(...times);
      const total = Math.max(1, end - start);
      const pageRow = ({ span, depth, left, width }: WaterfallRow): TracePageRow => ({
        spanId: span.spanId,
        projectSlug: slug(projectOf.get(span.spanId) ?? 0),
        name: span.name,
        op: span.op,
        status: span.status,
        offset: span.start - start,
        duration: span.end - span.start,
        depth,
        left,
        width,
        root: rootOf.get(span.spanId) === span.spanId,
        errors: errorsOn.get(span.spanId) ?? 0,
        logs: logsOn.get(span.spanId) ?? 0,
        group: null,
      });
      // Folded first, on the waterfall's own rows: only the rows drawn become page rows.
      const { rows: shownRows, left: rowsLeftOut } = foldRows(rows, total, opts, {
        alike: (a, b) =>
          a.span.op === b.span.op && a.span.name === b.span.name && projectOf.get(a.span.spanId) === projectOf.get(b.span.spanId),
        keep: (r) => errorsOn.has(r.span.spanId),
        row: pageRow,
        logs: (r) => logsOn.get(r.span.spanId) ?? 0,
      });

      const services = new Map<number, { slug: string; platform: string; spans: number; errors: number }>();
      const service = (projectId: number) => {
        let s = services.get(projectId);
        if (!s) {
          const p = t.projects.get(projectId);
          s = { slug: p?.slug ?? "unknown", platform: p?.platform ?? "other", spans: 0, errors: 0 };
          services.set(projectId, s);
        }
        return s;
      };
      for (const s of t.spans) service(s.projectId).spans++;
      for (const e of t.errors) service(e.projectId).errors++;
      const transactions = rows
        .filter((r) => rootOf.get(r.span.spanId) === r.span.spanId)
        .map((r) => ({
          name: r.span.name,
          projectSlug: slug(projectOf.get(r.span.spanId) ?? 0),
          duration: r.span.end - r.span.start,
          spanId: r.span.spanId,
        }));

      const replays = new Set<string>();
      for (const e of t.errors) {
        const ctx = e.event.contexts as Record<string, { replay_id?: unknown } | undefined> | undefined;
        const id = replayIdOf(ctx?.replay?.replay_id) ?? replayIdOf((e.event.tags as Record<string, unknown> | undefined)?.replayId);
        if (id) replays.add(id);
      }
      for (const l of logRows) {
        const id = replayIdOf(parseObject(l.attributes)["sentry.replay_id"]);
        if (id) replays.add(id);
      }

      const metrics = new Map<string, TracePageMetric>();
      for (const m of metricRows) {
        const key = `${m.name}\u0000${m.type}`;
        const entry = metrics.get(key) ?? { name: m.name, type: m.type, unit: m.unit, samples: [] };
        entry.samples.push({ at: m.timestamp, value: m.value, spanId: m.spanId });
        metrics.set(key, entry);
      }

      const stored = await replayIdsOfTrace(deps.db, t.projectIds, t.traceId, [...replays].slice(0, 100));
      for (const id of stored) replays.add(id);

      const picked = opts.span ? t.spans.find((s) => s.spanId === opts.span?.toLowerCase()) : undefined;
      const chosen = picked ? await findTraceSpan(deps.db, picked.projectId, t.traceId, picked.spanId) : undefined;
      return {
        traceId: t.traceId,
        start,
        end,
        rows: shownRows,
        spanCount: rows.length,
        rowsLeftOut,
        errors,
        logs,
        services: [...services.values()].sort((a, b) => b.spans - a.spans || a.slug.localeCompare(b.slug)),
        transactions,
        replayIds: [...replays],
        storedReplayIds: stored,
        metrics: [...metrics.values()],
        truncated: { spans: t.truncated, logs: logsTruncated },
        selected: chosen ? { spanId: chosen.spanId, attributes: parseObject(chosen.attributes) } : null,
      };
    },

    async list(viewer, orgSlug, f, metric) {
      const scope = await traceScope(deps, viewer, orgSlug);
      const bySlug = new Map([...scope.projects.values()].map((p) => [p.slug, p.id]));
      const projectIds = f.service ? [bySlug.get(f.service) ?? -1].filter((id) => scope.projects.has(id)) : scope.projectIds;
      const now = deps.now();
      const range = { start: now - f.period, end: now };
      const withErrors = f.hasErrors ? await tracesWithErrors(deps.db, projectIds, range, 500) : undefined;
      const roots = await listTraceRoots(deps.db, {
        projectIds,
        start: range.start,
        end: range.end,
        transaction: f.transaction,
        minDuration: f.minDuration,
        traceIds: withErrors,
        limit: PAGE + 1,
        offset: f.cursor,
      });
      // One row per trace: the earliest of its segments on the page (the trace's root when visible).
      const first = new Map<string, (typeof roots)[number]>();
      for (const r of roots.slice(0, PAGE)) {
        const seen = first.get(r.traceId);
        if (!seen || r.start < seen.start) first.set(r.traceId, r);
      }
      const page = [...first.values()].sort((a, b) => b.start - a.start);
      const ids = page.map((r) => r.traceId);
      const [summaries, errorCounts] = await Promise.all([
        summarizeTraces(deps.db, scope.projectIds, ids),
        errorCountsOf(deps.db, scope.projectIds, ids),
      ]);
      const slug = (id: number) => scope.projects.get(id)?.slug ?? "unknown";
      const items = page.map((r) => {
        const s = summaries.get(r.traceId);
        return {
          traceId: r.traceId,
          rootName: r.segmentName ?? r.rootName,
          rootOp: r.rootOp,
          projectSlug: slug(r.projectId),
          start: r.start,
          duration: r.end - r.start,
          spans: s?.spans ?? 0,
          errors: errorCounts.get(r.traceId) ?? 0,
          services: (s?.projectIds ?? [r.projectId]).map(slug).sort(),
        };
      });
      const names = await metricNames(deps.db, projectIds, range);
      const chosen = names.find((n) => n.name === metric) ?? (metric === undefined ? names[0] : undefined);
      let chart: TraceList["chart"] = null;
      if (chosen) {
        const samples = await scanMetrics(deps.db, { projectIds, start: range.start, end: range.end, limit: 20_000, names: [chosen.name] });
        const width = Math.max(1, Math.ceil(f.period / BUCKETS));
        const sums = Array.from({ length: BUCKETS }, () => ({ sum: 0, n: 0 }));
        for (const m of samples) {
          if (m.type !== chosen.type) continue;
          const i = Math.min(BUCKETS - 1, Math.floor((m.timestamp - range.start) / width));
          const b = sums[i];
          if (!b) continue;
          b.sum += m.value;
          b.n++;
        }
        chart = {
          name: chosen.name,
          type: chosen.type,
          unit: chosen.unit,
          // Counters add up; gauges and distributions average over the bucket.
          buckets: sums.map((b, i) => ({
            at: range.start + i * width,
            value: b.n === 0 ? null : chosen.type === "counter" ? b.sum : b.sum / b.n,
          })),
        };
      }
      return {
        items,
        next: roots.length > PAGE ? f.cursor + PAGE : null,
        services: [...scope.projects.values()].map((p) => p.slug).sort(),
        metricNames: names,
        chart,
      };
    },
  };
}
