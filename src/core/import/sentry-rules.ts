/**
 * Sentry's issue alert rules (`GET /api/0/projects/{org}/{project}/rules/`) as Errata's (issue 32),
 * without I/O. A rule moves only when every condition and filter has the same meaning here: a rule
 * that lost a filter would fire more than it did, one that lost a condition would fire at other
 * times. Actions move when Errata has the same channel (an email to named people or the project's
 * members, a webhook URL); the others are listed with the reason, and the rule still moves with
 * what it can send to, so an owner only has to attach a channel.
 *
 * Another Errata answers the same shape with its own extras (query, in-app only, the hourly cap,
 * the crash-free trigger, several environments): those are taken as they are.
 */
import { z } from "zod";
import { DEFAULT_HOURLY_CAP, DEFAULT_THROTTLE_MINUTES } from "../alerts/rule-input";
import type { ChannelConfig, ChannelKind, CrashFreeTrigger, Fallthrough, RuleSettings, RuleTarget, TagFilter } from "../alerts/types";

const id = z.union([z.string(), z.number()]).transform(String);
const item = z.record(z.string(), z.unknown());

export const sentryRuleSchema = z.object({
  id,
  name: z.string().nullish(),
  actionMatch: z.string().nullish(),
  filterMatch: z.string().nullish(),
  /** Sentry's "perform actions at most once every N minutes" */
  frequency: z.number().nullish(),
  environment: z.string().nullish(),
  conditions: z.array(item).nullish(),
  filters: z.array(item).nullish(),
  actions: z.array(item).nullish(),
  status: z.string().nullish(),
  // Errata's own fields (another Errata as the source)
  query: z.string().nullish(),
  inAppOnly: z.boolean().nullish(),
  hourlyCap: z.number().nullish(),
  crashFree: z.object({ belowPercent: z.number(), minSessions: z.number() }).nullish(),
  environments: z.array(z.string()).nullish(),
});
export type SentryRule = z.infer<typeof sentryRuleSchema>;

/** Sentry's legacy webhooks plugin (`/plugins/webhooks/`): its `urls` option, one per line. */
export const sentryPluginSchema = z.object({
  enabled: z.boolean().nullish(),
  config: z.array(z.object({ name: z.string(), value: z.unknown() })).nullish(),
});

export function webhookPluginUrls(p: z.infer<typeof sentryPluginSchema>): string[] {
  if (p.enabled === false) return [];
  const raw = p.config?.find((c) => c.name === "urls")?.value;
  if (typeof raw !== "string") return [];
  return [...new Set(raw.split(/[\s,]+/).filter((u) => /^https?:\/\//i.test(u) && URL.canParse(u)))].sort();
}

const C = "sentry.rules.conditions.";
const CONDITION = {
  firstSeen: `${C}first_seen_event.FirstSeenEventCondition`,
  regression: `${C}regression_event.RegressionEventCondition`,
  reappeared: `${C}reappeared_event.ReappearedEventCondition`,
  frequency: `${C}event_frequency.EventFrequencyCondition`,
  users: `${C}event_frequency.EventUniqueUserFrequencyCondition`,
  // Before filters were separate, tags and levels were conditions of an "all" rule.
  taggedLegacy: `${C}tagged_event.TaggedEventCondition`,
  levelLegacy: `${C}level.LevelCondition`,
};
const F = "sentry.rules.filters.";
const FILTER = {
  tagged: `${F}tagged_event.TaggedEventFilter`,
  level: `${F}level.LevelFilter`,
  age: `${F}age_comparison.AgeComparisonFilter`,
};
const ACTION = {
  email: "sentry.mail.actions.NotifyEmailAction",
  service: "sentry.rules.actions.notify_event_service.NotifyEventServiceAction",
  legacyAll: "sentry.rules.actions.notify_event.NotifyEventAction",
  errataChannel: "errata.rules.actions.NotifyChannelAction",
};

/** Why some of Sentry's conditions, filters and actions have no counterpart here, by id. */
const WHY_NOT: Record<string, string> = {
  [`${C}high_priority_issue.NewHighPriorityIssueCondition`]: "Errata has no issue priority (its closest trigger is “a new issue”)",
  [`${C}high_priority_issue.ExistingHighPriorityIssueCondition`]: "Errata has no issue priority",
  [`${C}event_frequency.EventFrequencyPercentCondition`]: "Errata counts events, not a percentage of sessions per issue",
  [`${C}event_attribute.EventAttributeCondition`]: "Errata filters on tags, levels and its search language, not on event attributes",
  [`${F}issue_occurrences.IssueOccurrencesFilter`]: "Errata has no “issue seen more than N times” filter",
  [`${F}latest_release.LatestReleaseFilter`]: "Errata has no “latest release” filter",
  [`${F}latest_adopted_release_filter.LatestAdoptedReleaseFilter`]: "Errata has no “latest adopted release” filter",
  [`${F}assigned_to.AssignedToFilter`]: "Errata has no “assigned to” filter",
  [`${F}issue_category.IssueCategoryFilter`]: "Errata has one issue category (errors)",
  [`${F}event_attribute.EventAttributeFilter`]: "Errata filters on tags, levels and its search language, not on event attributes",
  "sentry.integrations.slack.notify_action.SlackNotifyServiceAction":
    "Sentry's Slack app posts through its workspace integration; Errata posts to an incoming-webhook URL, which Sentry's API does not expose — add a Slack channel here",
  "sentry.integrations.discord.notify_action.DiscordNotifyServiceAction":
    "Sentry's Discord integration has no webhook URL in its API — add a Discord channel here",
  "sentry.integrations.msteams.notify_action.MsTeamsNotifyServiceAction":
    "Sentry's Teams integration has no webhook URL in its API — add a Teams channel here",
  "sentry.integrations.pagerduty.notify_action.PagerDutyNotifyServiceAction":
    "Sentry's PagerDuty integration keeps its key secret — add a PagerDuty channel with the routing key here",
  "sentry.integrations.opsgenie.notify_action.OpsgenieNotifyTeamAction":
    "Sentry's Opsgenie integration keeps its key secret — add an Opsgenie channel here",
  [ACTION.errataChannel]: "a channel's settings (URLs, secrets) are not served by Errata's API — attach a channel here",
};

const LEVEL_NAMES: Record<string, string> = { "50": "fatal", "40": "error", "30": "warning", "20": "info", "10": "debug" };
const LEVELS_ASC = ["debug", "info", "warning", "error", "fatal"];
const INTERVAL_MINUTES: Record<string, number> = {
  "1m": 1,
  "5m": 5,
  "10m": 10,
  "15m": 15,
  "1h": 60,
  "1d": 1440,
  "1w": 10080,
  "30d": 43200,
};
const AGE_UNIT: Record<string, number> = { minute: 1, hour: 60, day: 1440, week: 10080 };
const MAX_WINDOW = 7 * 24 * 60;

/** Who the source's email actions can name, read from its members and teams. */
export interface EmailDirectory {
  /** a Sentry user id or member id → email */
  person: Map<string, string>;
  /** a team id or slug → its slug and its members' emails */
  team: Map<string, { slug: string; emails: string[] }>;
}

export interface ChannelSpec {
  kind: ChannelKind;
  name: string;
  config: ChannelConfig;
}

export type TranslatedRule =
  | {
      ok: true;
      /** everything but `channelIds` (the server finds or makes the channels first) */
      settings: Omit<RuleSettings, "channelIds">;
      channels: ChannelSpec[];
      /** actions left out and differences worth saying */
      notes: string[];
    }
  | { ok: false; reasons: string[] };

const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
const shortId = (cid: unknown) => str(cid).split(".").pop() || "?";

/**
 * A Sentry issue alert rule as Errata's, or every reason it cannot be. `ownersFallthrough`: what an
 * "issue owners" email action that states no `fallthroughType` falls through to
 * (`legacyOwnersFallthrough` of the project's ownership settings).
 */
export function translateSentryRule(
  rule: SentryRule,
  dir: EmailDirectory,
  webhookUrls: string[] | null,
  ownersFallthrough: Fallthrough = "active_members",
): TranslatedRule {
  const reasons: string[] = [];
  const notes: string[] = [];
  const conditions = rule.conditions ?? [];
  const actionMatch = rule.actionMatch ?? "any";
  const filterMatch = rule.filterMatch ?? "all";

  const triggers = {
    newIssue: false,
    regression: false,
    unignored: false,
    frequency: null as null | { events: number; users: number; minutes: number },
    crashFree: null as CrashFreeTrigger | null,
    match: (actionMatch === "all" ? "all" : "any") as "any" | "all",
  };
  // Legacy tag and level conditions of an "all" rule are filters in all but name.
  const legacyFilters: Array<Record<string, unknown>> = [];
  let triggerCount = 0;
  for (const c of conditions) {
    const cid = str(c.id);
    if (cid === CONDITION.firstSeen) triggers.newIssue = true;
    else if (cid === CONDITION.regression) triggers.regression = true;
    else if (cid === CONDITION.reappeared) triggers.unignored = true;
    else if (cid === CONDITION.frequency || cid === CONDITION.users) {
      const r = frequencyOf(c, triggers.frequency);
      if (typeof r === "string") {
        reasons.push(r);
        continue;
      }
      triggers.frequency = r;
    } else if ((cid === CONDITION.taggedLegacy || cid === CONDITION.levelLegacy) && actionMatch === "all") {
      legacyFilters.push({ ...c, id: cid === CONDITION.taggedLegacy ? FILTER.tagged : FILTER.level });
      continue;
    } else {
      reasons.push(`condition ${shortId(cid)}: ${WHY_NOT[cid] ?? "Errata has no such trigger"}`);
      continue;
    }
    triggerCount++;
  }
  if (rule.crashFree) {
    triggers.crashFree = rule.crashFree;
    triggerCount++;
  }
  // "all" is Errata's too (triggers.match), for issue triggers; crash-free is a release trigger.
  if (actionMatch === "all" && triggerCount > 1 && triggers.crashFree) {
    reasons.push("it fires only when all its conditions hold at once, crash-free rate included; Errata evaluates crash-free on its own");
  }
  if (actionMatch === "none") reasons.push("it fires when none of its conditions hold; Errata has no such rule");
  if (triggerCount === 0 && reasons.length === 0) reasons.push("it has no condition Errata can trigger on");

  const filters = [...legacyFilters, ...(rule.filters ?? [])];
  if (filterMatch === "any" && filters.length > 1) {
    reasons.push("it passes when any one of its filters holds; Errata's filters must all hold");
  }
  if (filterMatch === "none" && filters.length > 0) reasons.push("it passes when none of its filters hold; Errata has no such filter");
  const tags: TagFilter[] = [];
  let levels: string[] | null = null;
  let maxIssueAgeMinutes: number | null = null;
  for (const f of filters) {
    const fid = str(f.id);
    if (fid === FILTER.tagged) {
      const match = str(f.match);
      if ((match === "eq" || match === "co") && str(f.key) && f.value !== undefined) {
        tags.push({ key: str(f.key).slice(0, 200), op: match === "eq" ? "equals" : "contains", value: str(f.value).slice(0, 200) });
      } else reasons.push(`tag filter “${str(f.key)} ${match}”: Errata's tag filters are “equals” and “contains”`);
    } else if (fid === FILTER.level) {
      const allowed = levelsOf(str(f.match), str(f.level));
      if (allowed === null) reasons.push(`level filter “${str(f.match)} ${str(f.level)}”: not a level comparison Errata knows`);
      else levels = levels === null ? allowed : levels.filter((l) => allowed.includes(l));
    } else if (fid === FILTER.age) {
      const unit = AGE_UNIT[str(f.time)];
      const value = Number(f.value);
      if (str(f.comparison_type) !== "newer") reasons.push("age filter “older than”: Errata only filters issues newer than an age");
      else if (!unit || !Number.isInteger(value) || value < 1 || value * unit > 365 * 1440)
        reasons.push("age filter: not an age of 1 minute to 1 year");
      else maxIssueAgeMinutes = maxIssueAgeMinutes === null ? value * unit : Math.min(maxIssueAgeMinutes, value * unit);
    } else reasons.push(`filter ${shortId(fid)}: ${WHY_NOT[fid] ?? "Errata has no such filter"}`);
  }
  if (levels !== null && levels.length === 0) reasons.push("its level filters exclude every level");
  if (reasons.length > 0) return { ok: false, reasons };

  const channels: ChannelSpec[] = [];
  const targets: RuleTarget[] = [];
  for (const a of rule.actions ?? []) {
    const r = channelsOf(a, dir, webhookUrls, ownersFallthrough);
    if (typeof r === "string") notes.push(`action ${shortId(a.id)} not moved: ${r}`);
    else {
      channels.push(...r.channels);
      for (const t of r.targets ?? []) if (!targets.some((x) => x.type === t.type)) targets.push(t);
      if (r.note) notes.push(r.note);
    }
  }
  if ((rule.actions ?? []).length > 0 && channels.length === 0 && targets.length === 0)
    notes.push("it sends nowhere until a channel is attached");

  let throttleMinutes = rule.frequency ?? DEFAULT_THROTTLE_MINUTES;
  if (!Number.isInteger(throttleMinutes) || throttleMinutes < 0) throttleMinutes = DEFAULT_THROTTLE_MINUTES;
  if (throttleMinutes > MAX_WINDOW) {
    notes.push(`at most once every ${throttleMinutes} minutes became once a week (Errata's longest)`);
    throttleMinutes = MAX_WINDOW;
  }
  const environments = rule.environments && rule.environments.length > 0 ? rule.environments : rule.environment ? [rule.environment] : [];
  return {
    ok: true,
    settings: {
      name: ((rule.name ?? "").trim() || `Sentry rule ${rule.id}`).slice(0, 100),
      enabled: rule.status !== "disabled",
      triggers,
      filters: {
        environments,
        levels: levels ?? [],
        tags,
        maxIssueAgeMinutes,
        inAppOnly: rule.inAppOnly === true,
        query: rule.query ?? "",
      },
      targets,
      throttleMinutes,
      hourlyCap: rule.hourlyCap ?? DEFAULT_HOURLY_CAP,
    },
    channels: dedupeChannels(channels),
    notes,
  };
}

function frequencyOf(
  c: Record<string, unknown>,
  prev: { events: number; users: number; minutes: number } | null,
): { events: number; users: number; minutes: number } | string {
  const what = str(c.id) === CONDITION.users ? "users" : "events";
  if (c.comparisonType !== undefined && c.comparisonType !== null && str(c.comparisonType) !== "count") {
    return `condition “${what} in an interval” compared with an earlier period: Errata counts within one window only`;
  }
  const minutes = INTERVAL_MINUTES[str(c.interval)];
  if (!minutes) return `condition “${what} in an interval”: interval “${str(c.interval)}” is not one Sentry documents`;
  if (minutes > MAX_WINDOW) return `condition “${what} in ${str(c.interval)}”: Errata's longest window is a week`;
  const value = Number(c.value);
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000) return `condition “${what} in an interval”: value ${str(c.value)}`;
  if (prev && prev.minutes !== minutes) return "its event and user counts use different intervals; Errata counts both in one window";
  const next = prev ?? { events: 0, users: 0, minutes };
  return what === "users" ? { ...next, users: value } : { ...next, events: value };
}

/** Sentry's level comparison as the list of levels it lets through. */
function levelsOf(match: string, level: string): string[] | null {
  const name = LEVEL_NAMES[level] ?? (LEVELS_ASC.includes(level) ? level : undefined);
  if (!name) return null;
  const i = LEVELS_ASC.indexOf(name);
  if (match === "eq") return [name];
  if (match === "gte") return LEVELS_ASC.slice(i);
  if (match === "lte") return LEVELS_ASC.slice(0, i + 1);
  return null;
}

/** Sentry's `fallthroughType` of a mail-to-issue-owners action (ActiveMembers is its default). */
const FALLTHROUGH: Record<string, Fallthrough> = { AllMembers: "all_members", ActiveMembers: "active_members", NoOne: "no_one" };

const FALLTHROUGH_LABEL: Record<Fallthrough, string> = {
  all_members: "all members",
  active_members: "recently active members",
  no_one: "no one",
};

/**
 * What an "issue owners" email action without a `fallthroughType` falls through to, from the
 * project's ownership settings (Sentry's `GET …/ownership/`; null when unreadable). Such actions
 * come from a Sentry older than per-action fallthrough (self-hosted 23.1), where the project's
 * "fall through to everyone" switch decided; Sentry's migration 0349_issue_alert_fallback moved the
 * switch onto each such action, and so does the import: on → all members, off → no one, and
 * recently active members (Sentry's default since) where the project had no ownership settings —
 * which Sentry answers with a default whose `dateCreated` is null.
 */
export function legacyOwnersFallthrough(ownership: { fallthrough?: boolean | null; dateCreated?: string | null } | null): Fallthrough {
  if (!ownership || ownership.dateCreated === null || typeof ownership.fallthrough !== "boolean") return "active_members";
  return ownership.fallthrough ? "all_members" : "no_one";
}

function channelsOf(
  a: Record<string, unknown>,
  dir: EmailDirectory,
  webhookUrls: string[] | null,
  ownersFallthrough: Fallthrough,
): { channels: ChannelSpec[]; targets?: RuleTarget[]; note?: string } | string {
  const aid = str(a.id);
  if (aid === ACTION.email) {
    const type = str(a.targetType);
    const target = str(a.targetIdentifier);
    if (type === "Member") {
      const email = dir.person.get(target);
      if (!email) return `member ${target} is not among the organization's members`;
      return { channels: [{ kind: "email", name: `Email ${email}`, config: { to: [email] } }] };
    }
    if (type === "Team") {
      const team = dir.team.get(target);
      if (!team || team.emails.length === 0) return `team ${target} has no members with an email address`;
      return {
        channels: [{ kind: "email", name: `Email team ${team.slug}`, config: { to: team.emails.slice(0, 50) } }],
        note: `mail to team ${team.slug} became mail to its members at import time (${team.emails.length})`,
      };
    }
    if (type === "IssueOwners" || type === "") {
      // Errata mails issue owners itself (ownership rules, CODEOWNERS), with Sentry's fallthrough.
      const stated = str(a.fallthroughType);
      if (stated) return { channels: [], targets: [{ type: "issue_owners", fallthrough: FALLTHROUGH[stated] ?? "active_members" }] };
      return {
        channels: [],
        targets: [{ type: "issue_owners", fallthrough: ownersFallthrough }],
        note: `mail to issue owners names no fallthrough: the project's ownership setting gives it (${FALLTHROUGH_LABEL[ownersFallthrough]})`,
      };
    }
    return `email target “${type}” is not one Errata knows`;
  }
  if (aid === ACTION.service || aid === ACTION.legacyAll) {
    if (aid === ACTION.service && str(a.service) !== "webhooks") return `service “${str(a.service)}” has no counterpart here`;
    if (webhookUrls === null) return "the project's webhooks plugin could not be read";
    if (webhookUrls.length === 0) return "the project's webhooks plugin has no URL";
    return {
      channels: webhookUrls.map((url) => ({
        kind: "webhook" as const,
        name: `Webhook ${new URL(url).host}`.slice(0, 100),
        config: { url },
      })),
    };
  }
  return WHY_NOT[aid] ?? "Errata has no such action";
}

/** The same channel named twice (two actions to one person) is one channel. */
function dedupeChannels(list: ChannelSpec[]): ChannelSpec[] {
  const seen = new Set<string>();
  return list.filter((c) => {
    const key = channelKey(c.kind, c.config);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A channel's identity for matching one already here: its kind and settings, keys sorted. */
export function channelKey(kind: string, config: ChannelConfig): string {
  const sorted = Object.fromEntries(
    Object.entries(config)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? [...v].sort() : v])
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return `${kind}:${JSON.stringify(sorted)}`;
}
