/**
 * Sentry's usage statistics over REST (issue 10): `…/projects/{org}/{project}/stats/` and
 * `…/organizations/{org}/stats_v2/`, read from the outcome counters (accepted, filtered,
 * rate_limited, invalid, client_discard) so dashboards written for Sentry's usage API work.
 * Needs project:read / org:read; a member sees only the projects of their teams.
 */
import { AppError } from "../../core/errors";
import {
  checkField,
  DROPPED_DATASETS,
  droppedEvents,
  droppedInterval,
  type LegacyStat,
  legacySeries,
  parseDuration,
  parseGroupBy,
  parseInterval,
  statsV2,
  type UsageRow,
} from "../../core/usage-stats";
import type { Db } from "../../storage/db";
import { listOutcomes } from "../../storage/events/outcomes";
import type { ProjectRow } from "../../storage/orgs/projects";
import { requirePermission } from "../access/access";
import type { OrgSummary, ProjectSummary, Viewer } from "../types";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface StatsApi {
  projectStats(viewer: Viewer, orgSlug: string, projectSlug: string, q: URLSearchParams): Promise<Array<[number, number]>>;
  orgStatsV2(viewer: Viewer, orgSlug: string, q: URLSearchParams): Promise<ReturnType<typeof statsV2>>;
  /** Sentry's `events-dropped`: accepted and dropped volume of one dataset per outcome and reason. */
  eventsDropped(viewer: Viewer, orgSlug: string, q: URLSearchParams): Promise<ReturnType<typeof droppedEvents>>;
}

export interface StatsApiDeps {
  db: Db;
  now: () => number;
  requireScope(viewer: Viewer, scope: string): void;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
  getProject(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<ProjectSummary>;
}

function invalid(field: string, message: string): AppError {
  return new AppError("validation_failed", message, { fields: [{ field, rule: "format", message }] });
}

/** Seconds since the epoch (Sentry's `since`/`until`) or an ISO date → epoch ms. */
function instant(v: string | null, field: string): number | undefined {
  if (v === null || v === "") return undefined;
  const ms = /^\d+(\.\d+)?$/.test(v) ? Number(v) * 1000 : Date.parse(v);
  if (!Number.isFinite(ms)) throw invalid(field, `${field} must be epoch seconds or an ISO date.`);
  return ms;
}

/** The time range: `statsPeriod` (default), or `start`/`end` (also `since`/`until`). */
function range(q: URLSearchParams, now: number, defaultPeriod: number): { start: number; end: number } {
  const end = instant(q.get("end") ?? q.get("until"), "end") ?? now;
  const start = instant(q.get("start") ?? q.get("since"), "start");
  if (start !== undefined) {
    if (start >= end) throw invalid("start", "start must be before end.");
    return { start, end };
  }
  const periodText = q.get("statsPeriod");
  const period = periodText ? parseDuration(periodText) : defaultPeriod;
  if (period === undefined) throw invalid("statsPeriod", "statsPeriod must look like 24h, 14d or 2w.");
  return { start: end - Math.min(period, 90 * DAY), end };
}

function toUsage(rows: Awaited<ReturnType<typeof listOutcomes>>): UsageRow[] {
  return rows.map((r) => ({
    projectId: r.projectId,
    hour: r.hour,
    category: r.category,
    outcome: r.outcome,
    reason: r.reason,
    quantity: r.quantity,
  }));
}

export function createStatsApi(deps: StatsApiDeps): StatsApi {
  /** The org's projects the viewer sees, narrowed by `project=` ids (ids they cannot see count nothing). */
  async function projectIdsOf(viewer: Viewer, orgSlug: string, q: URLSearchParams): Promise<number[]> {
    const org = await deps.membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, "org.read");
    const visible = await deps.projectsOf(org);
    const asked = q.getAll("project").filter((p) => p !== "" && p !== "-1");
    if (asked.length === 0) return [...visible.keys()];
    // Sentry takes ids or slugs.
    const bySlug = new Map([...visible.values()].map((p) => [p.slug, p.id]));
    return asked.map((p) => (/^\d+$/.test(p) ? Number(p) : (bySlug.get(p) ?? -1))).filter((id) => visible.has(id));
  }

  return {
    async projectStats(viewer, orgSlug, projectSlug, q) {
      deps.requireScope(viewer, "project:read");
      const project = await deps.getProject(viewer, orgSlug, projectSlug);
      const stat = (q.get("stat") ?? "received") as LegacyStat;
      if (!["received", "rejected", "blacklisted"].includes(stat)) throw invalid("stat", "stat must be received, rejected or blacklisted.");
      const interval = parseInterval(q.get("resolution") ?? q.get("interval"), HOUR);
      const { start, end } = range(q, deps.now(), DAY);
      const rows = await listOutcomes(deps.db, { projectIds: [project.id], from: Math.floor(start / HOUR) * HOUR, to: end });
      return legacySeries(toUsage(rows), { stat, start, end, interval });
    },

    async orgStatsV2(viewer, orgSlug, q) {
      // `project` filters by id; ids the viewer cannot see count nothing (never an error that
      // would confirm they exist).
      const projectIds = await projectIdsOf(viewer, orgSlug, q);
      const field = checkField(q.get("field"));
      const interval = parseInterval(q.get("interval"), HOUR);
      const { start, end } = range(q, deps.now(), 14 * DAY);
      const rows = await listOutcomes(deps.db, { projectIds, from: Math.floor(start / HOUR) * HOUR, to: end });
      const categories = q.getAll("category").filter(Boolean);
      const outcomes = q.getAll("outcome").filter(Boolean);
      return statsV2(toUsage(rows), {
        start,
        end,
        interval,
        field,
        groupBy: parseGroupBy(q.getAll("groupBy")),
        categories: categories.length > 0 ? categories : undefined,
        outcomes: outcomes.length > 0 ? outcomes : undefined,
      });
    },

    async eventsDropped(viewer, orgSlug, q) {
      const projectIds = await projectIdsOf(viewer, orgSlug, q);
      const dataset = q.get("dataset") ?? "";
      if (!Object.hasOwn(DROPPED_DATASETS, dataset))
        throw invalid("dataset", `dataset must be one of ${Object.keys(DROPPED_DATASETS).join(", ")}.`);
      const { start, end } = range(q, deps.now(), DAY);
      const interval = droppedInterval(q.get("interval"), end - start);
      const rows = await listOutcomes(deps.db, { projectIds, from: Math.floor(start / HOUR) * HOUR, to: end });
      return droppedEvents(toUsage(rows), {
        dataset,
        start,
        end,
        interval,
        outcome: q.get("outcome") || undefined,
        reason: q.get("reason") || undefined,
      });
    },
  };
}
