/**
 * Sentry's REST shapes, for tools written against Sentry's API (sentry-cli, scripts). Field names
 * and quirks (counts as strings, ISO dates) follow Sentry's serializers.
 */
import { parseAssignee } from "../../../core/assignee";
import type { EventDetail, IssueSummary } from "../../types";
import { sentryIssueKind, sentryPriority } from "../issue-kind";
import { sentryEventShape } from "./event";

/** Sentry's actor shape: a team is `{type: "team", id, name: slug}`, a user carries an email. */
function sentryActor(a: { id: string; name: string; email: string }) {
  const target = parseAssignee(a.id);
  if (target?.kind === "team") return { type: "team", id: String(target.teamId), name: a.name.replace(/^#/, "") };
  return { type: "user", id: a.id, name: a.name, email: a.email };
}

export function sentryIssue(issue: IssueSummary, publicUrl: string, orgSlug: string) {
  const assignee = issue.assignee;
  const kind = sentryIssueKind(issue.type);
  const count = String(issue.count);
  const firstSeen = new Date(issue.firstSeen).toISOString();
  const lastSeen = new Date(issue.lastSeen).toISOString();
  // One literal with fixed keys (no spreads): lists shape up to 100 of these per request.
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
    project: { id: String(issue.projectId), slug: issue.projectSlug, name: issue.projectSlug, platform: issue.projectPlatform ?? null },
    type: issue.type,
    issueType: kind.issueType,
    issueCategory: kind.issueCategory,
    priority: sentryPriority(issue.level),
    // Nobody sets a priority by hand in Errata.
    priorityLockedAt: null,
    metadata: issue.metadata,
    numComments: issue.numComments ?? 0,
    assignedTo: assignee ? sentryActor(assignee) : null,
    isBookmarked: false,
    isSubscribed: false,
    hasSeen: false,
    annotations: issue.annotations ?? [],
    count,
    userCount: issue.userCount,
    firstSeen,
    lastSeen,
    // Only where the caller read them (services.issues list, sentryDetailFacts): undefined is left out.
    isUnhandled: issue.isUnhandled,
    latestEventHasAttachments: issue.latestEventHasAttachments,
    // Errata's counts are the issue's whole life; `filtered` (counts under the search's filters) is not computed.
    lifetime: { count, userCount: issue.userCount, firstSeen, lastSeen, stats: null },
    filtered: null,
    // No inbox ("for review") in Errata; no public share links; subscriptions are not kept per issue.
    inbox: null,
    shareId: null,
    subscriptionDetails: null,
    // Sessions are counted per release, not read for issue lists (Sentry: only with expand=sessions).
    sessionCount: null,
    // No Seer, no integrations or Sentry apps to link issues from.
    seerAutofixLastTriggered: null,
    seerExplorerAutofixLastTriggered: null,
    seerFixabilityScore: null,
    integrationIssues: [],
    sentryAppIssues: [],
  };
}

/** Sentry's event serializer shape (src/server/sentry-api/shapes/event.ts). */
export function sentryEvent(ev: EventDetail) {
  return sentryEventShape(ev);
}
