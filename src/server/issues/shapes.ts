/** Issue and event rows as the services hand them out (summary, detail with assignee, event detail). */
import { limitDepth, MAX_EVENT_DEPTH } from "../../core/bounded-json";
import { statusDetailsOf } from "../../core/issue-state/update-input";
import type { Db } from "../../storage/db";
import type { getEvent } from "../../storage/events/events";
import type { IssueRow } from "../../storage/issues/issues";
import type { ProjectRow } from "../../storage/orgs/projects";
import type { EventDetail, IssueDetail, IssueSummary } from "../types";
import { assigneeProfile } from "./actions";

export type EventRow = NonNullable<Awaited<ReturnType<typeof getEvent>>>;

export function toIssueSummary(row: IssueRow, projects: Map<number, ProjectRow>): IssueSummary {
  const project = projects.get(row.projectId);
  const slug = project?.slug ?? "unknown";
  return {
    id: row.id,
    shortId: `${slug.toUpperCase()}-${row.shortId}`,
    projectId: row.projectId,
    projectSlug: slug,
    title: row.title,
    culprit: row.culprit,
    type: row.type,
    level: row.level,
    status: row.status as IssueSummary["status"],
    substatus: row.substatus,
    count: row.eventCount,
    userCount: row.userCount,
    firstSeen: row.firstSeen,
    lastSeen: row.lastSeen,
    metadata: row.metadata,
    assigneeUserId: row.assigneeUserId,
    statusDetails: statusDetailsOf(row),
    // Sentry: the first event's platform; issues from before it was kept answer their project's.
    platform: row.platform ?? project?.platform,
    projectPlatform: project?.platform,
    lastEventId: row.lastEventId,
  };
}

export async function toIssueDetail(db: Db, issue: IssueRow, projects: Map<number, ProjectRow>): Promise<IssueDetail> {
  return {
    ...toIssueSummary(issue, projects),
    firstRelease: issue.firstRelease,
    lastRelease: issue.lastRelease,
    firstEventId: issue.firstEventId,
    lastEventId: issue.lastEventId,
    statusDetails: statusDetailsOf(issue),
    resolution: issue.resolution,
    ignore: issue.ignore,
    resolvedAt: issue.resolvedAt,
    assignee: await assigneeProfile(db, issue.assigneeUserId),
  };
}

export function toEventDetail(ev: EventRow, projects: Map<number, ProjectRow>): EventDetail {
  return {
    eventId: ev.eventId,
    issueId: ev.issueId,
    projectId: ev.projectId,
    projectSlug: projects.get(ev.projectId)?.slug ?? "unknown",
    receivedAt: ev.receivedAt,
    size: ev.size,
    // Depth-bounded: events stored before the normaliser bounded depth would overflow rendering.
    event: limitDepth(ev.event, MAX_EVENT_DEPTH).value as Record<string, unknown>,
  };
}
