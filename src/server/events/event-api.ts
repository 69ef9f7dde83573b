/**
 * Sentry's event and tag reads over REST (issue 10): an issue's events (`?full=true` for whole
 * events), a project's events, an issue's tags with top values, every value of one tag, and the
 * issue's hashes. Authorization is the issue and project reads' own (event:read, membership).
 */
import { limitDepth, MAX_EVENT_DEPTH } from "../../core/bounded-json";
import { AppError } from "../../core/errors";
import type { ErrataMeta } from "../../core/event";
import type { Db } from "../../storage/db";
import { issueHashes, issueTagValues, listEventsWithPayload } from "../../storage/events/compat-reads";
import { getAdjacentEventIds, getEvent, getLatestEvent, type StoredEvent } from "../../storage/events/events";
import { listFeedback } from "../../storage/feedback/feedback";
import { tagDistribution } from "../../storage/issues/stats";
import { oldestEventId } from "../../storage/issues/triage-reads";
import type { Access } from "../access/access";
import { sentryEventListItem, sentryEventShape } from "../sentry-api/shapes/event";
import { type SentryGroupingVariant, sentryGroupingInfo } from "../sentry-api/shapes/grouping-info";
import { sentryUserReport } from "../sentry-api/shapes/user-report";
import type { EventDetail, IssueDetail, Page, ProjectSummary, Viewer } from "../types";

export interface EventListQuery {
  full?: boolean;
  cursor?: string | null;
  limit?: number;
}

export interface SentryTag {
  key: string;
  name: string;
  totalValues: number;
  topValues: SentryTagValue[];
}

export interface SentryTagValue {
  key: string;
  name: string;
  value: string;
  count: number;
  lastSeen: string;
}

export interface EventApiServices {
  issueEvents(viewer: Viewer, orgSlug: string, issueId: number, q: EventListQuery): Promise<Page<unknown>>;
  projectEvents(viewer: Viewer, orgSlug: string, projectSlug: string, q: EventListQuery): Promise<Page<unknown>>;
  issueTags(viewer: Viewer, orgSlug: string, issueId: number): Promise<SentryTag[]>;
  issueTagValues(viewer: Viewer, orgSlug: string, issueId: number, key: string): Promise<SentryTagValue[]>;
  issueHashes(
    viewer: Viewer,
    orgSlug: string,
    issueId: number,
  ): Promise<Array<{ id: string; latestEvent: null; mergedBySeer: false; seerMatchDistance: null }>>;
  /** One event of an issue: `latest`, `oldest`, `recommended` (the latest) or an event id; with its neighbours' ids. */
  issueEvent(viewer: Viewer, orgSlug: string, issueId: number, which: string): Promise<SentryEventDetail>;
  /** One event of a project named by slug or numeric id, as Sentry's project event endpoint answers it. */
  projectEvent(viewer: Viewer, orgSlug: string, projectRef: string, eventId: string): Promise<SentryEventDetail>;
  /** Sentry's grouping info of one event: its variants, hashes and contributing values, as stored at digest. */
  groupingInfo(viewer: Viewer, orgSlug: string, projectRef: string, eventId: string): Promise<Record<string, SentryGroupingVariant>>;
}

/** The shape already types `previousEventID`, `nextEventID` and `userReport`; eventDetail fills them. */
export type SentryEventDetail = ReturnType<typeof sentryEventShape>;

export interface EventApiDeps {
  db: Db;
  getIssue(viewer: Viewer, orgSlug: string, issueId: number): Promise<IssueDetail>;
  getProject(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<ProjectSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  projectOrThrow: Access["projectOrThrow"];
}

const MAX_LIMIT = 100;

function encodeCursor(c: { receivedAt: number; id: number }): string {
  return Buffer.from(`${c.receivedAt}:${c.id}`).toString("base64url");
}

function decodeCursor(cursor: string | null | undefined): { receivedAt: number; id: number } | null {
  if (!cursor) return null;
  const m = Buffer.from(cursor, "base64url")
    .toString()
    .match(/^(\d+):(\d+)$/);
  if (!m)
    throw new AppError("validation_failed", "Invalid cursor.", {
      fields: [{ field: "cursor", rule: "format", message: "not a cursor from this page" }],
    });
  return { receivedAt: Number(m[1]), id: Number(m[2]) };
}

const detailOf = (e: StoredEvent, projectSlug: string): EventDetail => ({
  eventId: e.eventId,
  issueId: e.issueId,
  projectId: e.projectId,
  projectSlug,
  receivedAt: e.receivedAt,
  size: e.size,
  // Depth-bounded as the issue page's reads are: a row stored before the normaliser bounded depth
  // would otherwise overflow JSON.stringify (a 500 instead of the event).
  event: limitDepth(e.event, MAX_EVENT_DEPTH).value as Record<string, unknown>,
});

export function createEventApi(deps: EventApiDeps): EventApiServices {
  const { db } = deps;

  async function page(where: { issueId?: number; projectId?: number }, projectSlug: string, q: EventListQuery): Promise<Page<unknown>> {
    const limit = Math.max(1, Math.min(q.limit ?? MAX_LIMIT, MAX_LIMIT));
    const res = await listEventsWithPayload(db, { ...where, limit, cursor: decodeCursor(q.cursor) });
    const shape = q.full ? sentryEventShape : sentryEventListItem;
    return {
      items: res.items.map((e) => shape(detailOf(e, projectSlug))),
      nextCursor: res.nextCursor ? encodeCursor(res.nextCursor) : null,
    };
  }

  /** The whole event as Sentry's event endpoints answer it: its neighbours in the issue and the user's report on it. */
  async function eventDetail(ev: StoredEvent, projectSlug: string): Promise<SentryEventDetail> {
    const [adjacent, [report]] = await Promise.all([
      getAdjacentEventIds(db, ev),
      listFeedback(db, { projectIds: [ev.projectId], eventId: ev.eventId, limit: 1 }),
    ]);
    return {
      ...sentryEventShape(detailOf(ev, projectSlug)),
      previousEventID: adjacent.older,
      nextEventID: adjacent.newer,
      userReport: report ? sentryUserReport(report) : null,
    };
  }

  async function chosenEvent(issue: IssueDetail, which: string): Promise<StoredEvent | undefined> {
    if (which === "latest" || which === "recommended") return getLatestEvent(db, issue.id);
    if (which === "oldest") {
      const first = await oldestEventId(db, issue.id);
      return first ? getEvent(db, issue.projectId, first) : undefined;
    }
    const id = which.replace(/-/g, "").toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(id)) return undefined;
    const ev = await getEvent(db, issue.projectId, id);
    return ev && ev.issueId === issue.id ? ev : undefined;
  }

  return {
    async issueEvents(viewer, orgSlug, issueId, q) {
      const issue = await deps.getIssue(viewer, orgSlug, issueId);
      return page({ issueId: issue.id }, issue.projectSlug, q);
    },

    async projectEvents(viewer, orgSlug, projectSlug, q) {
      deps.requireScope(viewer, "event:read");
      const project = await deps.getProject(viewer, orgSlug, projectSlug);
      return page({ projectId: project.id }, project.slug, q);
    },

    async issueTags(viewer, orgSlug, issueId) {
      const issue = await deps.getIssue(viewer, orgSlug, issueId);
      const tags = await tagDistribution(db, issue.id, { keys: 100, values: 10 });
      return tags.map((t) => ({
        key: t.key,
        name: t.key,
        totalValues: t.total,
        // Per-value last seen is not kept for the distribution; the issue's last event bounds it.
        topValues: t.top.map((v) => ({
          key: t.key,
          name: v.value,
          value: v.value,
          count: v.count,
          lastSeen: new Date(issue.lastSeen).toISOString(),
        })),
      }));
    },

    async issueTagValues(viewer, orgSlug, issueId, key) {
      const issue = await deps.getIssue(viewer, orgSlug, issueId);
      if (key.length === 0 || key.length > 200) throw new AppError("not_found", "Tag not found.");
      const values = await issueTagValues(db, issue.id, key, 1000);
      if (values.length === 0) throw new AppError("not_found", "Tag not found.");
      return values.map((v) => ({ key, name: v.value, value: v.value, count: v.count, lastSeen: new Date(v.lastSeen).toISOString() }));
    },

    async issueEvent(viewer, orgSlug, issueId, which) {
      const issue = await deps.getIssue(viewer, orgSlug, issueId);
      const ev = await chosenEvent(issue, which);
      if (!ev)
        throw new AppError(
          "not_found",
          which === "latest" || which === "recommended" || which === "oldest" ? "This issue has no stored events." : "Event not found.",
        );
      return eventDetail(ev, issue.projectSlug);
    },

    async projectEvent(viewer, orgSlug, projectRef, eventId) {
      const { project } = await deps.projectOrThrow(viewer, orgSlug, projectRef, "event.read");
      const id = eventId.replace(/-/g, "").toLowerCase();
      const ev = /^[0-9a-f]{32}$/.test(id) ? await getEvent(db, project.id, id) : undefined;
      if (!ev) throw new AppError("not_found", "Event not found.");
      return eventDetail(ev, project.slug);
    },

    async groupingInfo(viewer, orgSlug, projectRef, eventId) {
      const { project } = await deps.projectOrThrow(viewer, orgSlug, projectRef, "event.read");
      const id = eventId.replace(/-/g, "").toLowerCase();
      const ev = /^[0-9a-f]{32}$/.test(id) ? await getEvent(db, project.id, id) : undefined;
      if (!ev) throw new AppError("not_found", "Event not found.");
      return sentryGroupingInfo((ev.event as { errata?: ErrataMeta }).errata?.grouping);
    },

    async issueHashes(viewer, orgSlug, issueId) {
      const issue = await deps.getIssue(viewer, orgSlug, issueId);
      // No Seer similarity grouping here: no hash was merged by it, none has a distance.
      return (await issueHashes(db, issue.id)).map((h) => ({
        id: h.hash,
        latestEvent: null,
        mergedBySeer: false,
        seerMatchDistance: null,
      }));
    },
  };
}
