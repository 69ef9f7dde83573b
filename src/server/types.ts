/**
 * Shapes the application services return to pages, route handlers, the REST API and the CLI.
 * Pages import these as types only; the implementations live behind `app()`.
 */

import type { ActivityKind, IgnoreCondition, Resolution } from "../core/issue-state/types";

/** The signed-in user (or the owner of an API token). */
export interface Viewer {
  userId: string;
  email: string;
  name: string;
  /** Scopes when acting through an API token; undefined for a browser session (role decides). */
  scopes?: string[];
  /** An organization token: the only organization it works in. */
  tokenOrgId?: number | null;
}

export type Role = "owner" | "admin" | "member" | "viewer";

export interface OrgSummary {
  id: number;
  slug: string;
  name: string;
  role: Role;
  /** when the organization was created (epoch ms; Sentry's `dateCreated`) */
  createdAt?: number;
  /**
   * The projects this viewer may see when teams restrict them (members and viewers of an org with
   * teams: their teams' projects); absent or null: all of the org's projects.
   */
  visibleProjectIds?: number[] | null;
}

export interface ProjectSummary {
  id: number;
  slug: string;
  name: string;
  platform: string;
  dsn: string | null;
  /** epoch ms (Sentry's `dateCreated`) */
  createdAt?: number;
}

export type IssueStatus = "unresolved" | "resolved" | "ignored";

export interface IssueSummary {
  id: number;
  /** e.g. "WEB-12" */
  shortId: string;
  projectId: number;
  projectSlug: string;
  title: string;
  culprit: string;
  type: string;
  level: string;
  status: IssueStatus;
  substatus: string;
  count: number;
  userCount: number;
  firstSeen: number;
  lastSeen: number;
  metadata: Record<string, unknown>;
  /** the assigned member's user id */
  assigneeUserId: string | null;
  /** their profile, where the caller resolved it (issue detail, the REST list) */
  assignee?: UserRef | null;
  /** Sentry's statusDetails: {inRelease} | {inNextRelease} | {ignoreCount, ignoreWindow?} | … | {} */
  statusDetails: Record<string, unknown>;
  /** classification badges set at digest time, e.g. `deploy-skew` (absent when none) */
  flags?: string[];
  /** the first event's platform, else the project's (Sentry's issue `platform`) */
  platform?: string;
  /** the project's platform (Sentry's `project.platform`) */
  projectPlatform?: string;
  /** the newest event's id */
  lastEventId?: string | null;
  /** any of its events unhandled (`handled:no`), where the caller read it (the REST list, sentryDetailFacts) */
  isUnhandled?: boolean;
  /** its newest event has an attachment, where the caller read it (the REST list, sentryDetailFacts) */
  latestEventHasAttachments?: boolean;
  /** comments on it, where the caller read them (the REST list, sentryDetailFacts) */
  numComments?: number;
  /** the tracker issue linked to it, where the caller read it (Sentry's `annotations`) */
  annotations?: Array<{ displayName: string; url: string }>;
}

export interface IssueDetail extends IssueSummary {
  firstRelease: string | null;
  lastRelease: string | null;
  firstEventId: string | null;
  lastEventId: string | null;
  /** how it was resolved (null unless resolved) */
  resolution: Resolution | null;
  /** until when it is ignored (null unless ignored) */
  ignore: IgnoreCondition | null;
  resolvedAt: number | null;
  assignee: UserRef | null;
  /** user reports naming any of its events, where the caller read it (services.issues.sentryDetailFacts) */
  userReportCount?: number;
}

// ---------------------------------------------------------------------------------------------
// Issue lifecycle (services.issueActions)

export type { ActivityKind, IgnoreCondition, Resolution } from "../core/issue-state/types";

export interface UserRef {
  id: string;
  email: string;
  name: string;
}

/**
 * An issue update in Sentry's shape (REST `PUT …/issues/{id}/`; the UI sends the same). Validated
 * strictly by the service: exactly one condition in statusDetails, windows in minutes.
 */
export interface IssueUpdate {
  status?: "resolved" | "unresolved" | "ignored" | "resolvedInNextRelease";
  statusDetails?: {
    /** resolve in this release ("latest": the project's latest release) */
    inRelease?: string;
    /** resolve in the release after the project's latest one */
    inNextRelease?: boolean;
    /** ignore for this many minutes */
    ignoreDuration?: number;
    /** ignore until this ISO time */
    ignoreUntil?: string;
    /** ignore until this many more events (within ignoreWindow minutes when given) */
    ignoreCount?: number;
    ignoreWindow?: number;
    /** ignore until this many more users (within ignoreUserWindow minutes when given) */
    ignoreUserCount?: number;
    ignoreUserWindow?: number;
  };
  /** accepted for Sentry compatibility; Errata derives the substatus */
  substatus?: string | null;
  /** a member's user id, `user:<id>`, or email; null or "" unassigns */
  assignedTo?: string | null;
}

export interface ActivityItem {
  id: number;
  issueId: number;
  kind: ActivityKind;
  /** null: Errata itself (regressions, unignores, aging) */
  actor: UserRef | null;
  /**
   * state_change: {from: {status, substatus}, to: {status, substatus}, resolution?, ignore?, reason?};
   * regression: {release, resolution, eventId}; unignored: {reason: time|events|users, ignore, eventId?};
   * assigned: {assignee: UserRef | null}; comment: {text}; merge: {merged: [{id, shortId, title}]};
   * first_seen_in_release: {release, eventId}
   */
  data: Record<string, unknown>;
  createdAt: number;
}

export interface BulkUpdateResult {
  /** the issues updated (all of those asked for) */
  ids: number[];
}

export interface MergeResult {
  /** the surviving issue (the oldest) */
  primaryId: number;
  /** the issues now part of it (their rows are gone) */
  mergedIds: number[];
}

export interface DeleteResult {
  deletedIds: number[];
}

export interface EventDetail {
  eventId: string;
  issueId: number;
  projectId: number;
  projectSlug: string;
  receivedAt: number;
  /** bytes of the stored event (Sentry's `size`), where the reader had it */
  size?: number;
  /** The stored, normalised Sentry event JSON. Render defensively: it comes from an SDK. */
  event: Record<string, unknown>;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// ---------------------------------------------------------------------------------------------
// Next.js digests (services.digests)

/** One event carrying a Next.js digest, with its issue: a row of the digest page and of "linked digest events". */
export interface DigestEvent {
  /** the digest as the SDK sent it (may end in `@E<code>`) */
  digest: string;
  /** the match key (without `@E<code>`) */
  key: string;
  /** `server`: onRequestError / the server SDK; `client`: the browser (error.tsx, global-error.tsx) */
  side: "server" | "client";
  eventId: string;
  receivedAt: number;
  projectSlug: string;
  issueId: number;
  issueShortId: string;
  issueTitle: string;
  /** for linked events: how many events of that issue share the digest (within the window) */
  count: number;
}

export interface DigestLookup {
  /** the match key asked for */
  key: string;
  /** server events first, then client events; newest first within each */
  events: DigestEvent[];
  /** true when more events share the digest than listed */
  truncated: boolean;
}
