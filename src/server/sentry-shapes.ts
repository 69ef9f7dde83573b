/**
 * Sentry's REST shapes, for tools written against Sentry's API (sentry-cli, scripts). Field names
 * and quirks (counts as strings, ISO dates) follow Sentry's serializers.
 */
import type { EventDetail, IssueSummary } from "./types";

export function sentryIssue(issue: IssueSummary, publicUrl: string, orgSlug: string) {
  const assignee = issue.assignee;
  return {
    id: String(issue.id),
    shortId: issue.shortId,
    title: issue.title,
    culprit: issue.culprit,
    permalink: `${publicUrl}/${orgSlug}/issues/${issue.id}`,
    logger: null,
    level: issue.level,
    status: issue.status,
    statusDetails: issue.statusDetails,
    // Sentry: resolved issues have no substatus.
    substatus: issue.status === "resolved" ? null : issue.substatus,
    isPublic: false,
    platform: null,
    project: { id: String(issue.projectId), slug: issue.projectSlug, name: issue.projectSlug },
    type: issue.type,
    metadata: issue.metadata,
    numComments: 0,
    assignedTo: assignee ? { type: "user", id: assignee.id, name: assignee.name, email: assignee.email } : null,
    isBookmarked: false,
    isSubscribed: false,
    hasSeen: false,
    annotations: [],
    count: String(issue.count),
    userCount: issue.userCount,
    firstSeen: new Date(issue.firstSeen).toISOString(),
    lastSeen: new Date(issue.lastSeen).toISOString(),
  };
}

export function sentryEvent(ev: EventDetail) {
  const e = ev.event;
  const tags = Array.isArray(e.tags)
    ? (e.tags as unknown[]).filter((t): t is [string, string] => Array.isArray(t) && t.length === 2).map(([key, value]) => ({ key, value }))
    : [];
  return {
    ...e,
    id: ev.eventId,
    eventID: ev.eventId,
    groupID: String(ev.issueId),
    projectID: String(ev.projectId),
    dateReceived: new Date(ev.receivedAt).toISOString(),
    dateCreated: isoOrReceived(e.timestamp, ev.receivedAt),
    tags,
  };
}

/** The event time as ISO text; the receive time when the stored value is no usable date. */
function isoOrReceived(timestamp: unknown, receivedAt: number): string {
  const d = new Date(typeof timestamp === "number" ? timestamp * 1000 : Number.NaN);
  return Number.isNaN(d.getTime()) ? new Date(receivedAt).toISOString() : d.toISOString();
}
