/**
 * Alert rules and what they are matched against (SPEC §3 AlertRule / Notification). Pure data:
 * storage keeps these as JSON columns, `rule-input.ts` validates what admins send.
 */

export type TriggerKind = "new_issue" | "regression" | "unignored" | "frequency" | "crash_free";

export interface FrequencyTrigger {
  /** fire when more than this many events arrive within `minutes` (0 = not used) */
  events: number;
  /** fire when more than this many new distinct users are seen within `minutes` (0 = not used) */
  users: number;
  minutes: number;
}

/**
 * A release-level trigger: the release's crash-free sessions rate (as the release page shows it)
 * drops below `belowPercent` once at least `minSessions` sessions were counted. Issue filters do
 * not apply to it; only the rule's environments do (they narrow which sessions count).
 */
export interface CrashFreeTrigger {
  /** fire when the crash-free sessions rate is below this percentage (0 < x ≤ 100, hundredths) */
  belowPercent: number;
  /** …and at least this many sessions were counted for the release (≥ 1) */
  minSessions: number;
}

export interface RuleTriggers {
  newIssue: boolean;
  regression: boolean;
  unignored: boolean;
  frequency: FrequencyTrigger | null;
  crashFree: CrashFreeTrigger | null;
  /**
   * "any" (default; absent on rules saved before it existed): one holding trigger fires the rule.
   * "all": every issue trigger set must hold on the same event (Sentry's `actionMatch`).
   */
  match?: "any" | "all";
}

export interface TagFilter {
  key: string;
  op: "equals" | "contains";
  value: string;
}

export interface RuleFilters {
  /** any of these environments (empty = any) */
  environments: string[];
  /** any of these levels (empty = any) */
  levels: string[];
  /** every one must hold on the event's tags */
  tags: TagFilter[];
  /** only issues first seen at most this many minutes ago (null = any age) */
  maxIssueAgeMinutes: number | null;
  /** only events whose stack trace has an in-app frame */
  inAppOnly: boolean;
  /** the stream's search language (src/core/search), "" = none */
  query: string;
}

/**
 * An email target resolved to people when the message is delivered (issue 30): the issue's owners
 * by the ownership rules (the last matching rule's owners; a team is its members), or the members
 * who authored its suspect commits. When nobody is found the fallthrough decides: every project
 * member, the recently active ones, or no one (Sentry's `fallthroughType`).
 */
export type TargetType = "issue_owners" | "suspect_commits";
export type Fallthrough = "all_members" | "active_members" | "no_one";
export interface RuleTarget {
  type: TargetType;
  fallthrough: Fallthrough;
}

export interface RuleSettings {
  name: string;
  enabled: boolean;
  triggers: RuleTriggers;
  filters: RuleFilters;
  /** channel ids of the project this rule sends to */
  channelIds: number[];
  /** email to people found per issue (issue owners, suspect commit authors) */
  targets: RuleTarget[];
  /** at most one message per issue every this many minutes (0 = no limit) */
  throttleMinutes: number;
  /** messages per hour for the whole rule; beyond it they are held and summarised (SPEC §9: 60) */
  hourlyCap: number;
}

export interface AlertRule extends RuleSettings {
  id: number;
  projectId: number;
  createdAt: number;
  updatedAt: number;
}

export const CHANNEL_KINDS = [
  "email",
  "webhook",
  "slack",
  "discord",
  "teams",
  "mattermost",
  "telegram",
  "ntfy",
  "googlechat",
  "pagerduty",
  "opsgenie",
] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export interface ChannelConfig {
  /** webhook kinds: where to POST (Telegram: the API base, default https://api.telegram.org) */
  url?: string;
  /** generic webhook: HMAC-SHA256 key for the signature header */
  secret?: string;
  /** email: explicit recipients; when empty, the project's members (minus those who opted out) */
  to?: string[];
  /** telegram */
  botToken?: string;
  chatId?: string;
  /** ntfy: topic is the URL path; optional bearer token */
  token?: string;
  /** PagerDuty: the Events API v2 integration (routing) key */
  routingKey?: string;
  /** Opsgenie: the API integration's key */
  apiKey?: string;
}

export interface AlertChannel {
  id: number;
  projectId: number;
  name: string;
  kind: ChannelKind;
  config: ChannelConfig;
  createdAt: number;
}

/** What a rule is matched against: the issue after the event was counted, and the event. */
export interface AlertSubject {
  projectSlug: string;
  issue: {
    id: number;
    title: string;
    culprit: string;
    level: string;
    status: string;
    substatus: string;
    firstSeen: number;
    lastSeen: number;
    eventCount: number;
    userCount: number;
    /** the issue's kind (`issue.type:`); absent: an error issue of the digest */
    type?: string;
  };
  event: {
    level: string;
    environment: string | null;
    release: string | null;
    /** the tags the stream searches (statTagsOf): environment, release, level, user, SDK tags… */
    tags: Array<[string, string]>;
    hasInAppFrame: boolean;
  };
}

/** The per (rule, issue) counters the frequency trigger and the throttle keep. */
export interface RuleIssueState {
  /** start of the current frequency window (epoch ms) */
  windowStart: number;
  /** the issue's event and user counts just before the window started */
  baseEvents: number;
  baseUsers: number;
  /** whether the frequency trigger already fired in this window (spike: one message) */
  firedInWindow: boolean;
  /** last time this rule queued a message for this issue (throttle), null when never */
  lastNotifiedAt: number | null;
}

/** The per (rule, release) state of the crash-free trigger: one message per drop, again only after recovery. */
export interface RuleReleaseState {
  /** the rule has sent for the release's current drop below the threshold (cleared on recovery) */
  below: boolean;
  /** last time this rule queued a message for this release (throttle), null when never */
  lastNotifiedAt: number | null;
}

/** The settings that let webhooks reach loopback and private addresses, named wherever one is refused. */
export const WEBHOOK_POLICY_SETTINGS = { allowPrivate: "ALERTS_ALLOW_PRIVATE_WEBHOOKS", allowHosts: "ALERTS_WEBHOOK_ALLOW_HOSTS" } as const;
