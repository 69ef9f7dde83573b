/** Sentry's issue list and issue detail, and single events, over the shared access rules. */
import { AppError } from "../../core/errors";
import { pastedEventId } from "../../core/search/parse-query";
import type { Db } from "../../storage/db";
import { getEvent, getLatestEvent } from "../../storage/events/events";
import { countIssueFeedback, eventsWithAttachments, unhandledIssueIds } from "../../storage/issues/issue-facts";
import { bucketSeries } from "../../storage/issues/stats";
import { findProjectByRef } from "../../storage/orgs/projects";
import type { Access } from "../access/access";
import { canSeeProject } from "../access/visibility";
import { withIssueFlags } from "../events/digests";
import type { AppServices, IssueListQuery, ListedIssue } from "../services";
import type { IssueDetail, Viewer } from "../types";
import { assigneeProfiles } from "./actions";
import { parseShortId } from "./redirects";
import { toEventDetail, toIssueDetail } from "./shapes";
import type { IssueStreamServices } from "./stream";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const SERIES = { "24h": { bucketMs: HOUR_MS, buckets: 24 }, "14d": { bucketMs: DAY_MS, buckets: 14 } } as const;

/**
 * Sentry's `stats` of listed issues: buckets ending with the current hour (24h) or UTC day (14d).
 * Both series in one query; the 14d one reads the daily rollup (0042), ≤ 14 rows per issue.
 */
async function issueStats(db: Db, ids: number[], periods: Array<"24h" | "14d">, now: number) {
  const out = new Map<number, NonNullable<ListedIssue["stats"]>>(ids.map((id) => [id, {}]));
  if (ids.length === 0) return out;
  const specs = periods.map((period) => {
    const { bucketMs, buckets } = SERIES[period];
    return { period, bucketMs, buckets, from: Math.floor(now / bucketMs) * bucketMs + bucketMs - bucketMs * buckets };
  });
  const counts = await bucketSeries(db, ids, specs);
  specs.forEach(({ period, from, bucketMs, buckets }, n) => {
    for (const id of ids) {
      const series = counts[n]?.get(id) ?? [];
      (out.get(id) as NonNullable<ListedIssue["stats"]>)[period] = Array.from({ length: buckets }, (_, i) => [
        (from + i * bucketMs) / 1000,
        series[i] ?? 0,
      ]);
    }
  });
  return out;
}

export function createIssueReads(deps: {
  db: Db;
  access: Access;
  issueStream: IssueStreamServices;
  now?: () => number;
}): AppServices["issues"] {
  const { db, access, issueStream } = deps;
  const now = deps.now ?? Date.now;

  async function get(viewer: Viewer, orgSlug: string, issueId: number): Promise<IssueDetail> {
    access.requireScope(viewer, "event:read");
    const { issue, projects } = await access.issueInOrg(viewer, orgSlug, issueId);
    const [detail] = await withIssueFlags(db, [await toIssueDetail(db, issue, projects)]);
    return detail as IssueDetail;
  }

  /** Sentry's `isUnhandled` and `latestEventHasAttachments` of a page of issues: two indexed queries for the page. */
  async function sentryIssueFacts(items: Array<{ id: number; projectId: number; lastEventId?: string | null }>) {
    const latest = items.flatMap((i) => (i.lastEventId ? [{ projectId: i.projectId, eventId: i.lastEventId }] : []));
    const [unhandled, withAttachments] = await Promise.all([
      unhandledIssueIds(
        db,
        items.map((i) => i.id),
      ),
      eventsWithAttachments(db, latest),
    ]);
    const byId = new Map(items.map((i) => [i.id, i]));
    return (id: number) => {
      const i = byId.get(id);
      return {
        isUnhandled: unhandled.has(id),
        latestEventHasAttachments: i?.lastEventId ? withAttachments.has(`${i.projectId}:${i.lastEventId}`) : false,
      };
    };
  }

  /** Sentry's direct hit: a query that is an event id (or a short id, when asked) names one issue. */
  async function directHit(viewer: Viewer, orgSlug: string, q: IssueListQuery): Promise<IssueDetail | null> {
    const query = (q.query ?? "").trim();
    const isEventId = q.lookup?.eventId && pastedEventId(query) !== null;
    const isShortId = q.lookup?.shortId && parseShortId(query) !== null;
    if (!isEventId && !isShortId) return null;
    const found = await issueStream.openPasted(viewer, orgSlug, query);
    if (!found) return null;
    const issue = await get(viewer, orgSlug, found.issueId);
    return !q.projectIds || q.projectIds.includes(issue.projectId) ? issue : null;
  }

  return {
    // The stream's search (src/server/issues/stream.ts), without its default status or sparklines,
    // with assignees' profiles (Sentry's list carries assignedTo) and Sentry's `stats` when asked.
    async list(viewer, orgSlug, q) {
      const hit = await directHit(viewer, orgSlug, q);
      const page = hit ? { items: [hit], nextCursor: null } : await issueStream.search(viewer, orgSlug, { ...q, stats: undefined });
      // Independent reads: on PostgreSQL they overlap on the pool.
      const [profiles, stats, facts] = await Promise.all([
        assigneeProfiles(
          db,
          page.items.flatMap((i) => (i.assigneeUserId ? [i.assigneeUserId] : [])),
        ),
        q.stats?.length
          ? issueStats(
              db,
              page.items.map((i) => i.id),
              q.stats,
              now(),
            )
          : null,
        sentryIssueFacts(page.items),
      ]);
      return {
        nextCursor: page.nextCursor,
        ...(hit ? { directHit: true } : {}),
        items: page.items.map((i) => ({
          ...i,
          assignee: i.assigneeUserId ? (profiles.get(i.assigneeUserId) ?? null) : null,
          ...(stats ? { stats: stats.get(i.id) } : {}),
          ...facts(i.id),
        })),
      };
    },
    get,
    async sentryDetailFacts(viewer, orgSlug, issueId) {
      access.requireScope(viewer, "event:read");
      const { issue } = await access.issueInOrg(viewer, orgSlug, issueId);
      const [facts, userReportCount] = await Promise.all([sentryIssueFacts([issue]), countIssueFeedback(db, issue)]);
      return { ...facts(issue.id), userReportCount };
    },
  };
}

export function createEventReads(deps: { db: Db; access: Access }): AppServices["events"] {
  const { db, access } = deps;
  return {
    async latestForIssue(viewer, orgSlug, issueId) {
      access.requireScope(viewer, "event:read");
      const { issue, projects } = await access.issueInOrg(viewer, orgSlug, issueId);
      const ev = await getLatestEvent(db, issue.id);
      if (!ev) return null;
      return toEventDetail(ev, projects);
    },
    async get(viewer, orgSlug, projectSlug, eventId) {
      access.requireScope(viewer, "event:read");
      const org = await access.membershipOrThrow(viewer, orgSlug);
      const found = await findProjectByRef(db, org.id, projectSlug);
      const p = found && canSeeProject(org, found.id) ? found : undefined;
      const id = eventId.replace(/-/g, "").toLowerCase();
      const ev = p && /^[0-9a-f]{32}$/.test(id) ? await getEvent(db, p.id, id) : undefined;
      if (!p || !ev) throw new AppError("not_found", "Event not found.");
      return toEventDetail(ev, new Map([[p.id, p]]));
    },
  };
}
