/**
 * Sentry's REST shapes, for tools written against Sentry's API (sentry-cli, scripts). Field names
 * and quirks (counts as strings, ISO dates) follow Sentry's serializers.
 */
import { parseAssignee } from "../../core/assignee";
import { sentryEventShape } from "../events/sentry-event";
import type { EventDetail, IssueSummary } from "../types";

/** Sentry's actor shape: a team is `{type: "team", id, name: slug}`, a user carries an email. */
function sentryActor(a: { id: string; name: string; email: string }) {
  const target = parseAssignee(a.id);
  if (target?.kind === "team") return { type: "team", id: String(target.teamId), name: a.name.replace(/^#/, "") };
  return { type: "user", id: a.id, name: a.name, email: a.email };
}

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
    platform: issue.platform ?? null,
    project: { id: String(issue.projectId), slug: issue.projectSlug, name: issue.projectSlug },
    type: issue.type,
    metadata: issue.metadata,
    numComments: 0,
    assignedTo: assignee ? sentryActor(assignee) : null,
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

/** Sentry's event serializer shape (src/server/events/sentry-event.ts). */
export function sentryEvent(ev: EventDetail) {
  return sentryEventShape(ev);
}
