/**
 * The issue lifecycle's vocabulary (SPEC §4). Pure data: storage keeps resolutions and ignore
 * conditions as JSON, the state machine (`transitions.ts`) moves between them.
 */

export type IssueStatus = "unresolved" | "resolved" | "ignored";

/**
 * Sentry's substatuses: `new`, `ongoing`, `regressed` qualify unresolved issues; ignored issues
 * are `archived_forever` or `archived_until_condition_met`. Resolved issues carry `resolved`
 * (Sentry says null; the column is NOT NULL, and the REST shape maps it back to null).
 */
export type IssueSubstatus = "new" | "ongoing" | "regressed" | "archived_forever" | "archived_until_condition_met" | "resolved";

/** How an issue was resolved. `releaseOrder` is the release's creation time in Errata (epoch ms). */
export type Resolution =
  | { kind: "now" }
  | { kind: "in_release"; release: string; releaseOrder: number | null }
  /** `release` is the project's latest release when resolved (null: it had none). */
  | { kind: "in_next_release"; release: string | null; releaseOrder: number | null };

/**
 * Until when an issue stays ignored. Counting conditions keep the issue's counter at ignore time
 * (`baseline`) and the ignore time itself (`since`): with a window, only events received after
 * both `since` and `now - window` count.
 */
export type IgnoreCondition =
  | { kind: "forever" }
  | { kind: "until_time"; until: number }
  | { kind: "until_events"; count: number; windowMinutes: number | null; baseline: number; since: number }
  | { kind: "until_users"; count: number; windowMinutes: number | null; baseline: number; since: number };

export interface IssueState {
  status: IssueStatus;
  substatus: IssueSubstatus;
  /** epoch ms of the first event */
  firstSeen: number;
  /** epoch ms of the last status/substatus change (null: none since the issue was created) */
  statusChangedAt: number | null;
  resolvedAt: number | null;
  resolution: Resolution | null;
  ignore: IgnoreCondition | null;
  /** exact counters (when digesting: including the event at hand) */
  eventCount: number;
  userCount: number;
}

export type ActivityKind =
  | "state_change"
  | "regression"
  | "unignored"
  | "assigned"
  | "comment"
  | "merge"
  | "first_seen_in_release"
  | "unmerge";

/** An activity row to write; `actorUserId` null means Errata itself. */
export interface ActivityDraft {
  kind: ActivityKind;
  actorUserId: string | null;
  data: Record<string, unknown>;
}

export interface Transition {
  state: IssueState;
  activities: ActivityDraft[];
  /** false when nothing changed (no write needed) */
  changed: boolean;
}

export interface LifecycleConfig {
  /** unresolved/new (and unresolved/regressed) become unresolved/ongoing after this long (SPEC §9: 7 days) */
  ongoingAfterMs: number;
}

export const DEFAULT_LIFECYCLE: LifecycleConfig = { ongoingAfterMs: 7 * 24 * 3600 * 1000 };

export type ResolveCommand =
  | { kind: "now" }
  | { kind: "in_release"; release: string; releaseOrder?: number | null }
  /** `release`: the project's latest release at resolve time (null when it has none). */
  | { kind: "in_next_release"; release?: string | null; releaseOrder?: number | null };

export type IgnoreCommand =
  | { kind: "forever" }
  | { kind: "until_time"; until: number }
  | { kind: "until_events"; count: number; windowMinutes?: number | null }
  | { kind: "until_users"; count: number; windowMinutes?: number | null };

/** What the digest knows about the event being counted. */
export interface LifecycleEvent {
  /** epoch ms the event was received */
  receivedAt: number;
  release: string | null;
  /** creation time of the event's release in Errata; needed only when versions are not semver */
  releaseOrder?: number | null;
  /** events and distinct users since `windowSince(state, now)`; needed only for windowed ignores */
  windowCounts?: { events: number; users: number };
}
