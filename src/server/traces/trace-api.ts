/**
 * Sentry's trace endpoints over REST (issue 41), as `sentry trace view|logs`, `sentry span view`,
 * `sentry log view` and the MCP server's `get_trace_details` call them:
 *   GET /organizations/{org}/trace/{id}/        the span tree with its errors
 *   GET /organizations/{org}/trace-meta/{id}/   counts of spans (per op), errors, logs, metrics
 *   GET /organizations/{org}/trace-logs/        the logs of one or more traces, paged
 *   GET /projects/{org}/{project}/trace-items/{id}/?trace_id=…&item_type=logs|spans
 * Authorization is the trace page's (load-trace.ts): `event.read`, the viewer's projects only.
 * A trace's `statsPeriod` is accepted and not needed: a trace id names the trace, kept as long as
 * its project's retention allows.
 */
import { AppError } from "../../core/errors";
import { parseQuery } from "../../core/search/parse-query";
import { segmentRoots } from "../../core/traces";
import { findTraceLog, findTraceSpan, traceCounts, traceLogs, traceSpans } from "../../storage/events/trace-reads";
import type { ProjectRow } from "../../storage/orgs/projects";
import { discoverRange } from "../sentry-api/discover/plan";
import {
  sentryLogItem,
  sentrySpanItem,
  sentryTraceLog,
  sentryTraceMeta,
  sentryTraceTree,
  TRACE_LOG_META,
} from "../sentry-api/shapes/trace";
import type { OrgSummary, Viewer } from "../types";
import { errorSpanId, errorTransaction, loadTrace, TRACE_LIMITS, type TraceDeps, traceIdOf, traceScope } from "./load-trace";

export interface TraceApiDeps extends TraceDeps {
  projectOrThrow(
    viewer: Viewer,
    orgSlug: string,
    projectRef: string,
    action: "event.read",
  ): Promise<{ org: OrgSummary; project: ProjectRow }>;
}

export interface TraceApi {
  trace(viewer: Viewer, orgSlug: string, traceId: string, q: URLSearchParams): Promise<unknown[]>;
  traceMeta(viewer: Viewer, orgSlug: string, traceId: string, q: URLSearchParams): Promise<Record<string, unknown>>;
  traceLogs(viewer: Viewer, orgSlug: string, q: URLSearchParams): Promise<{ data: unknown[]; meta: unknown; nextCursor: string | null }>;
  traceItem(viewer: Viewer, orgSlug: string, projectRef: string, itemId: string, q: URLSearchParams): Promise<unknown>;
}

const MAX_LOGS_PER_PAGE = 1_000;
const MAX_TRACE_IDS = 100;

function offsetOf(cursor: string | null): number {
  if (!cursor) return 0;
  const m = /^(?:\d+:)?(\d{1,7})(?::[01])?$/.exec(cursor.trim());
  if (!m) throw AppError.field("cursor", "format", `Invalid cursor "${cursor.slice(0, 40)}".`);
  return Number(m[1]);
}

/** `query=` of trace-logs: free text in the message, `severity:`/`level:` and `message:`; other keys are attributes. */
function logFilter(query: string): (l: { level: string; body: string; attributes: string }) => boolean {
  const parsed = parseQuery(query);
  const words = parsed.text.map((w) => w.trim().toLowerCase()).filter((w) => w !== "");
  return (l) => {
    const body = l.body.toLowerCase();
    if (!words.every((w) => body.includes(w))) return false;
    for (const t of parsed.terms) {
      const values = (t.values ?? [t.value]).map((v) => v.toLowerCase());
      let actual: string;
      if (t.key === "severity" || t.key === "level" || t.key === "log.level") actual = l.level.toLowerCase();
      else if (t.key === "message" || t.key === "log.body") actual = body;
      else {
        const attrs = JSON.parse(l.attributes) as Record<string, unknown>;
        const v = attrs[t.key] ?? attrs[`sentry.${t.key}`];
        actual = v === undefined || v === null ? "" : String(v).toLowerCase();
      }
      const hit = values.some((v) =>
        v.includes("*") ? new RegExp(`^${v.split("*").map(escapeRegExp).join(".*")}$`).test(actual) : actual === v,
      );
      if (hit === t.negated) return false;
    }
    return true;
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function createTraceApi(deps: TraceApiDeps): TraceApi {
  return {
    async trace(viewer, orgSlug, traceId, q) {
      const extra = q
        .getAll("additional_attributes")
        .flatMap((a) => a.split(","))
        .filter((a) => a !== "")
        .slice(0, 50);
      // Each span reports its SDK's name; its other attributes only when asked for by name.
      const t = await loadTrace(deps, viewer, orgSlug, traceId, { attributes: extra.length > 0, sdkName: true });
      // Nothing of it in the viewer's projects: the same answer as a trace that does not exist.
      if (t.spans.length === 0 && t.errors.length === 0) throw new AppError("not_found", "Trace not found.");
      const slugOf = (id: number) => t.projects.get(id)?.slug ?? "unknown";
      const errors = t.errors.map((row) => ({
        row,
        projectSlug: slugOf(row.projectId),
        shortId: `${slugOf(row.projectId).toUpperCase()}-${row.shortId}`,
        transaction: errorTransaction(row),
        spanId: errorSpanId(row),
      }));
      return sentryTraceTree(t.spans, errors, slugOf, extra);
    },

    async traceMeta(viewer, orgSlug, rawTraceId, q) {
      const scope = await traceScope(deps, viewer, orgSlug);
      const traceId = traceIdOf(rawTraceId);
      const [counts, spans] = await Promise.all([
        traceCounts(deps.db, scope.projectIds, traceId),
        traceSpans(deps.db, scope.projectIds, traceId, TRACE_LIMITS.spans),
      ]);
      if (counts.spans + counts.errors + counts.logs + counts.metrics === 0) throw new AppError("not_found", "Trace not found.");
      return sentryTraceMeta(counts, spans.slice(0, TRACE_LIMITS.spans), q.get("include_uptime") === "1");
    },

    async traceLogs(viewer, orgSlug, q) {
      const scope = await traceScope(deps, viewer, orgSlug);
      const raw = q
        .getAll("traceId")
        .flatMap((v) => v.split(","))
        .filter((v) => v !== "");
      if (raw.length === 0) throw AppError.field("traceId", "required", "traceId is required: the trace whose logs to list.");
      const traceIds = [...new Set(raw.slice(0, MAX_TRACE_IDS).map((v) => traceIdOf(v, "traceId")))];
      const perPage = Math.min(MAX_LOGS_PER_PAGE, Math.max(1, Number(q.get("per_page") ?? 50) || 50));
      const offset = offsetOf(q.get("cursor"));
      const sort = q.get("sort") ?? "-timestamp";
      if (!["timestamp", "-timestamp", "timestamp_precise", "-timestamp_precise"].includes(sort))
        throw AppError.field("sort", "enum", `Cannot sort trace logs by "${sort.slice(0, 40)}": use timestamp or -timestamp.`);
      const range = discoverRange(q, deps.now());
      const query = q.get("query") ?? "";
      const keep = query.trim() === "" ? null : logFilter(query);
      // A filter is applied over what is read: read the trace's logs (bounded) and page after it.
      const rows = await traceLogs(deps.db, scope.projectIds, traceIds, {
        limit: keep ? TRACE_LIMITS.logs * 5 : perPage + 1,
        offset: keep ? 0 : offset,
        desc: sort.startsWith("-"),
        start: range.start,
        end: range.end,
      });
      const matching = keep ? rows.filter(keep).slice(offset, offset + perPage + 1) : rows;
      const page = matching.slice(0, perPage);
      return {
        data: page.map(sentryTraceLog),
        meta: TRACE_LOG_META,
        nextCursor: matching.length > perPage ? `0:${offset + perPage}:0` : null,
      };
    },

    async traceItem(viewer, orgSlug, projectRef, itemId, q) {
      const { project } = await deps.projectOrThrow(viewer, orgSlug, projectRef, "event.read");
      const id = itemId.replace(/-/g, "").toLowerCase();
      // Sentry's clients always say which; without it the id's length does (logs 32, spans 16).
      const type = q.get("item_type") ?? (id.length === 32 ? "logs" : "spans");
      if (type !== "spans" && type !== "logs") throw AppError.field("item_type", "enum", "item_type must be spans or logs.");
      const rawTrace = q.get("trace_id");
      const traceId = rawTrace ? traceIdOf(rawTrace) : null;
      if (type === "logs") {
        if (!/^[0-9a-f]{32}$/.test(id)) throw AppError.field("item_id", "format", "A log's id is 32 hex characters.");
        const log = await findTraceLog(deps.db, [project.id], traceId, id);
        if (!log) throw new AppError("not_found", "Log not found.");
        return sentryLogItem(log, project.slug);
      }
      if (!traceId) throw AppError.field("trace_id", "required", "trace_id is required to find a span.");
      if (!/^[0-9a-f]{16}$/.test(id)) throw AppError.field("item_id", "format", "A span's id is 16 hex characters.");
      const span = await findTraceSpan(deps.db, project.id, traceId, id);
      if (!span) throw new AppError("not_found", "Span not found.");
      // Whether it starts a segment needs its parent: read the trace's spans in this project.
      const spans = await traceSpans(deps.db, [project.id], traceId, TRACE_LIMITS.spans);
      const isRoot = segmentRoots(spans).get(span.spanId) === span.spanId;
      return sentrySpanItem(span, project.slug, isRoot);
    },
  };
}
