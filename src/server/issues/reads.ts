import { linkLabel } from "../../core/issue-trackers";
import { pastedEventId } from "../../core/search/parse-query";
import type { Db } from "../../storage/db";
import { getLatestEvent } from "../../storage/events/events";
import { commentCounts, countIssueFeedback, eventsWithAttachments, unhandledIssueIds } from "../../storage/issues/issue-facts";
import { issueLinks } from "../../storage/issues/links";
import { bucketSeries } from "../../storage/issues/stats";
import type { Access } from "../access/access";
import { withIssueFlags } from "../events/digests";
import type { AppServices } from "../services";
import type { IssueDetail, Viewer } from "../types";
import { assigneeProfiles } from "./actions";
import type { IssueListQuery } from "./list-query";
import { parseShortId } from "./redirects";
import { createSeriesCache, type SeriesCache, type StatsObject } from "./series-cache";
import { toEventDetail, toIssueDetail } from "./shapes";
import type { IssueStreamServices } from "./stream";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const SERIES = { "24h": { bucketMs: HOUR_MS, buckets: 24 }, "14d": { bucketMs: DAY_MS, buckets: 14 } } as const;

/**
 * Sentry's `stats` of listed issues: one series per request, as Sentry answers, keyed as asked;
 * buckets end with the current hour (24h) or UTC day (14d, read from the daily rollup of 0042).
 * Series still valid in the cache (series-cache.ts) are not read again.
 */
async function issueStats(
  db: Db,
  cache: SeriesCache,
  issues: Array<{ id: number; count: number; lastSeen: number }>,
  request: NonNullable<IssueListQuery["stats"]>,
  now: number,
): Promise<Map<number, StatsObject>> {
  const { bucketMs, buckets } = SERIES[request.series];
  const from = Math.floor(now / bucketMs) * bucketMs + bucketMs - bucketMs * buckets;
  const version = (i: { count: number; lastSeen: number }) => `${request.key}:${request.series}:${from}:${i.count}:${i.lastSeen}`;
  const out = new Map<number, StatsObject>();
  const missing = issues.filter((i) => {
    const hit = cache.get(i.id, version(i));
    if (hit) out.set(i.id, hit);
    return !hit;
  });
  if (missing.length === 0) return out;
  const [counts] = await bucketSeries(
    db,
    missing.map((i) => i.id),
    [{ bucketMs, buckets, from }],
  );
  for (const i of missing) {
    const series = counts?.get(i.id) ?? [];
    const stats: StatsObject = {
      [request.key]: Array.from({ length: buckets }, (_, n) => [(from + n * bucketMs) / 1000, series[n] ?? 0] as const),
    };
    cache.set(i.id, version(i), stats);
    out.set(i.id, stats);
  }
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
  const seriesCache = createSeriesCache();

  async function get(viewer: Viewer, orgSlug: string, issueId: number): Promise<IssueDetail> {
    access.requireScope(viewer, "event:read");
    const { issue, projects } = await access.issueInOrg(viewer, orgSlug, issueId);
    const [detail] = await withIssueFlags(db, [await toIssueDetail(db, issue, projects)]);
    return detail as IssueDetail;
  }

  /**
   * Sentry's `isUnhandled`, `latestEventHasAttachments`, `numComments` and `annotations` (the
   * linked tracker issue) of a page of issues: one indexed query each for the whole page.
   */
  async function sentryIssueFacts(items: Array<{ id: number; projectId: number; lastEventId?: string | null }>) {
    const ids = items.map((i) => i.id);
    const latest = items.flatMap((i) => (i.lastEventId ? [{ projectId: i.projectId, eventId: i.lastEventId }] : []));
    const [unhandled, withAttachments, comments, links] = await Promise.all([
      unhandledIssueIds(db, ids),
      eventsWithAttachments(db, latest),
      commentCounts(db, ids),
      issueLinks(db, ids),
    ]);
    const byId = new Map(items.map((i) => [i.id, i]));
    return (id: number) => {
      const i = byId.get(id);
      const link = links.get(id);
      return {
        isUnhandled: unhandled.has(id),
        latestEventHasAttachments: i?.lastEventId ? withAttachments.has(`${i.projectId}:${i.lastEventId}`) : false,
        numComments: comments.get(id) ?? 0,
        annotations: link ? [{ displayName: linkLabel(link.url), url: link.url }] : [],
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
        q.stats && page.items.length > 0 ? issueStats(db, seriesCache, page.items, q.stats, now()) : null,
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
  };
}
