/**
 * One trace as the viewer may see it: every span, error and log of it in the organization's
 * projects the viewer sees (members: their teams' projects), bounded. The trace page and Sentry's
 * trace endpoints both read through here, so they answer the same thing to the same person.
 * A trace with nothing visible is not found, the same answer as a trace that does not exist.
 */
import { AppError } from "../../core/errors";
import type { Db } from "../../storage/db";
import { type TraceErrorRow, type TraceTreeSpan, traceErrors, traceSpans } from "../../storage/events/trace-reads";
import type { ProjectRow } from "../../storage/orgs/projects";
import { requirePermission } from "../access/access";
import type { OrgSummary, Viewer } from "../types";

/** What one trace read takes at most (a trace page of 10,000 spans is still one read). */
export const TRACE_LIMITS = { spans: 10_000, errors: 200, logs: 1_000, metrics: 2_000 } as const;

export interface TraceDeps {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}

export interface TraceScope {
  org: OrgSummary;
  /** the projects the viewer sees, by id */
  projects: Map<number, ProjectRow>;
  projectIds: number[];
}

/** The org, checked for `event.read`, and the projects the viewer sees in it. */
export async function traceScope(deps: TraceDeps, viewer: Viewer, orgSlug: string): Promise<TraceScope> {
  const org = await deps.membershipOrThrow(viewer, orgSlug);
  requirePermission(viewer, org, "event.read");
  const projects = await deps.projectsOf(org);
  return { org, projects, projectIds: [...projects.keys()] };
}

/** A trace id as Sentry's clients send it (32 hex, dashes allowed); anything else is a 400 naming the field. */
export function traceIdOf(raw: string, field = "trace_id"): string {
  const id = raw.replace(/-/g, "").toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(id)) throw AppError.field(field, "format", `"${raw.slice(0, 40)}" is not a trace id (32 hex characters).`);
  return id;
}

export interface LoadedTrace extends TraceScope {
  traceId: string;
  spans: TraceTreeSpan[];
  errors: TraceErrorRow[];
  /** more spans than TRACE_LIMITS.spans exist */
  truncated: boolean;
}

export async function loadTrace(
  deps: TraceDeps,
  viewer: Viewer,
  orgSlug: string,
  rawTraceId: string,
  opts: { attributes?: boolean; sdkName?: boolean } = {},
): Promise<LoadedTrace> {
  const scope = await traceScope(deps, viewer, orgSlug);
  const traceId = traceIdOf(rawTraceId);
  const [spans, errors] = await Promise.all([
    traceSpans(deps.db, scope.projectIds, traceId, TRACE_LIMITS.spans, opts),
    traceErrors(deps.db, scope.projectIds, traceId, TRACE_LIMITS.errors),
  ]);
  const truncated = spans.length > TRACE_LIMITS.spans;
  return { ...scope, traceId, spans: truncated ? spans.slice(0, TRACE_LIMITS.spans) : spans, errors, truncated };
}

/** The span an error event happened in (its trace context), when it names one. */
export function errorSpanId(e: TraceErrorRow): string | null {
  const contexts = e.event.contexts as Record<string, unknown> | undefined;
  const trace = contexts && typeof contexts.trace === "object" && contexts.trace ? (contexts.trace as Record<string, unknown>) : null;
  const id = typeof trace?.span_id === "string" ? trace.span_id.toLowerCase() : null;
  return id && /^[0-9a-f]{16}$/.test(id) ? id : null;
}

/** The transaction an error event names (Sentry's `transaction`), empty when none. */
export function errorTransaction(e: TraceErrorRow): string {
  return typeof e.event.transaction === "string" ? e.event.transaction : "";
}
