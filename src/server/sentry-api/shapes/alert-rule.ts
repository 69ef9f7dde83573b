/**
 * Sentry's issue alert rule shape (`/api/0/projects/{org}/{project}/rules/`), as Terraform's
 * sentry provider and scripts read and write it, mapped to and from Errata's rules. Conditions
 * and filters Errata does not know are refused by name (validation_failed), never silently dropped.
 */
import type { AlertRule, Fallthrough, RuleTarget } from "../../../core/alerts/types";
import { AppError } from "../../../core/errors";

const C = {
  firstSeen: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition",
  regression: "sentry.rules.conditions.regression_event.RegressionEventCondition",
  reappeared: "sentry.rules.conditions.reappeared_event.ReappearedEventCondition",
  frequency: "sentry.rules.conditions.event_frequency.EventFrequencyCondition",
  users: "sentry.rules.conditions.event_frequency.EventUniqueUserFrequencyCondition",
};
const F = {
  tagged: "sentry.rules.filters.tagged_event.TaggedEventFilter",
  level: "sentry.rules.filters.level.LevelFilter",
  age: "sentry.rules.filters.age_comparison.AgeComparisonFilter",
};
const CHANNEL_ACTION = "errata.rules.actions.NotifyChannelAction";
/** Sentry's email action; `targetType` "IssueOwners" (Sentry's) or "SuspectCommitAuthors" (Errata's). */
const EMAIL_ACTION = "sentry.mail.actions.NotifyEmailAction";
const TARGET_TYPES: Record<RuleTarget["type"], string> = { issue_owners: "IssueOwners", suspect_commits: "SuspectCommitAuthors" };
const FALLTHROUGHS: Record<Fallthrough, string> = { all_members: "AllMembers", active_members: "ActiveMembers", no_one: "NoOne" };
const reverse = <T extends string>(m: Record<T, string>) =>
  Object.fromEntries(Object.entries(m).map(([a, b]) => [b, a])) as Record<string, T>;
const TARGET_OF = reverse(TARGET_TYPES);
const FALLTHROUGH_OF = reverse(FALLTHROUGHS);

/** Sentry's numeric levels. */
const LEVELS: Record<string, string> = { "50": "fatal", "40": "error", "30": "warning", "20": "info", "10": "debug" };
const LEVEL_NUM = Object.fromEntries(Object.entries(LEVELS).map(([n, l]) => [l, n]));
const INTERVALS: Record<string, number> = { "1m": 1, "5m": 5, "15m": 15, "1h": 60, "1d": 1440, "1w": 10080, "30d": 43200 };

const intervalOf = (minutes: number) => Object.entries(INTERVALS).find(([, m]) => m === minutes)?.[0] ?? `${minutes}m`;

export function sentryRule(r: AlertRule) {
  const conditions: Array<Record<string, unknown>> = [];
  if (r.triggers.newIssue) conditions.push({ id: C.firstSeen });
  if (r.triggers.regression) conditions.push({ id: C.regression });
  if (r.triggers.unignored) conditions.push({ id: C.reappeared });
  const f = r.triggers.frequency;
  if (f?.events) conditions.push({ id: C.frequency, value: f.events, interval: intervalOf(f.minutes) });
  if (f?.users) conditions.push({ id: C.users, value: f.users, interval: intervalOf(f.minutes) });
  const filters: Array<Record<string, unknown>> = r.filters.tags.map((t) => ({
    id: F.tagged,
    key: t.key,
    match: t.op === "equals" ? "eq" : "co",
    value: t.value,
  }));
  for (const l of r.filters.levels) filters.push({ id: F.level, match: "eq", level: LEVEL_NUM[l] });
  if (r.filters.maxIssueAgeMinutes !== null)
    filters.push({ id: F.age, comparison_type: "newer", value: r.filters.maxIssueAgeMinutes, time: "minute" });
  return {
    id: String(r.id),
    name: r.name,
    actionMatch: r.triggers.match === "all" ? "all" : "any",
    filterMatch: "all",
    frequency: r.throttleMinutes,
    environment: r.filters.environments[0] ?? null,
    conditions,
    filters,
    actions: [
      ...r.channelIds.map((id) => ({ id: CHANNEL_ACTION, channelId: id })),
      ...(r.targets ?? []).map((t) => ({
        id: EMAIL_ACTION,
        targetType: TARGET_TYPES[t.type],
        targetIdentifier: "",
        fallthroughType: FALLTHROUGHS[t.fallthrough],
      })),
    ],
    status: r.enabled ? "active" : "disabled",
    dateCreated: new Date(r.createdAt).toISOString(),
    // Errata's own: the search-language filter, in-app frames only, the hourly cap, and the
    // release-level crash-free trigger (Sentry has it as a metric alert, not an issue rule condition)
    query: r.filters.query,
    inAppOnly: r.filters.inAppOnly,
    hourlyCap: r.hourlyCap,
    crashFree: r.triggers.crashFree,
    // Sentry's rule has one environment; Errata's may have several. A client that sends the list
    // back unchanged keeps all of them (environmentsOf).
    environments: r.filters.environments,
  };
}

/**
 * The rule's environments from a Sentry-shaped body: Errata's `environments` list when the body
 * carries it and its Sentry `environment` was left as served (the list's first), else the one
 * `environment` a Sentry client set.
 */
function environmentsOf(body: Obj): string[] {
  const one = typeof body.environment === "string" && body.environment ? body.environment : null;
  const many =
    Array.isArray(body.environments) && body.environments.every((e) => typeof e === "string") ? (body.environments as string[]) : null;
  if (many && (one === null ? body.environment === undefined || many.length === 0 : many[0] === one)) return many;
  return one ? [one] : [];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

function unknownId(field: string, id: unknown): AppError {
  return new AppError("validation_failed", undefined, {
    fields: [{ field, rule: "supported", message: `"${String(id)}" is not supported by Errata` }],
  });
}

/** A Sentry rule body → Errata's rule input (validated afterwards by parseRuleInput). */
export function fromSentryRule(body: unknown): unknown {
  if (!isObj(body)) return body;
  const triggers = {
    newIssue: false,
    regression: false,
    unignored: false,
    frequency: null as null | { events: number; users: number; minutes: number },
    // validated by parseRuleInput (0 < belowPercent ≤ 100, minSessions ≥ 1)
    crashFree: body.crashFree === undefined ? null : body.crashFree,
    match: "any" as "any" | "all",
  };
  // Sentry's "none" (fire when no condition holds) has no counterpart: refused by name.
  if (body.actionMatch !== undefined && body.actionMatch !== null) {
    if (body.actionMatch !== "any" && body.actionMatch !== "all") throw unknownId("actionMatch", body.actionMatch);
    triggers.match = body.actionMatch;
  }
  for (const [i, c] of list(body.conditions).entries()) {
    if (c.id === C.firstSeen) triggers.newIssue = true;
    else if (c.id === C.regression) triggers.regression = true;
    else if (c.id === C.reappeared) triggers.unignored = true;
    else if (c.id === C.frequency || c.id === C.users) {
      const minutes = INTERVALS[String(c.interval)] ?? 60;
      const f = triggers.frequency ?? { events: 0, users: 0, minutes };
      if (c.id === C.frequency) f.events = Number(c.value);
      else f.users = Number(c.value);
      triggers.frequency = f;
    } else throw unknownId(`conditions.${i}.id`, c.id);
  }
  const tags: Array<{ key: unknown; op: string; value: unknown }> = [];
  const levels: string[] = [];
  let maxIssueAgeMinutes: number | null = null;
  for (const [i, f] of list(body.filters).entries()) {
    if (f.id === F.tagged && (f.match === "eq" || f.match === "co"))
      tags.push({ key: f.key, op: f.match === "eq" ? "equals" : "contains", value: f.value });
    else if (f.id === F.level && f.match === "eq" && LEVELS[String(f.level)]) levels.push(LEVELS[String(f.level)] as string);
    else if (f.id === F.age && f.comparison_type === "newer") {
      const unit = { minute: 1, hour: 60, day: 1440, week: 10080 }[String(f.time)] ?? 1;
      maxIssueAgeMinutes = Number(f.value) * unit;
    } else throw unknownId(`filters.${i}.id`, f.id);
  }
  // Errata's filters must all hold: Sentry's filterMatch "any" or "none" over several is refused.
  const filterMatch = body.filterMatch ?? "all";
  if (filterMatch !== "all" && list(body.filters).length > (filterMatch === "any" ? 1 : 0)) throw unknownId("filterMatch", filterMatch);
  const channelIds: number[] = [];
  const targets: Array<{ type: unknown; fallthrough: unknown }> = [];
  for (const [i, a] of list(body.actions).entries()) {
    if (a.id === CHANNEL_ACTION && typeof a.channelId === "number") channelIds.push(a.channelId);
    else if (a.id === EMAIL_ACTION) {
      // Sentry's Team and Member targets are not Errata's (a channel with addresses is): refused by name.
      const type = TARGET_OF[String(a.targetType)];
      if (!type) throw unknownId(`actions.${i}.targetType`, a.targetType);
      const fallthrough =
        a.fallthroughType === undefined || a.fallthroughType === null ? "active_members" : FALLTHROUGH_OF[String(a.fallthroughType)];
      if (!fallthrough) throw unknownId(`actions.${i}.fallthroughType`, a.fallthroughType);
      targets.push({ type, fallthrough });
    } else throw unknownId(`actions.${i}.id`, a.id);
  }
  return {
    name: body.name,
    enabled: body.status === undefined ? true : body.status !== "disabled",
    triggers,
    filters: {
      environments: environmentsOf(body),
      levels,
      tags,
      maxIssueAgeMinutes,
      query: typeof body.query === "string" ? body.query : "",
      inAppOnly: body.inAppOnly === true,
    },
    channelIds,
    targets,
    ...(typeof body.frequency === "number" ? { throttleMinutes: body.frequency } : {}),
    ...(typeof body.hourlyCap === "number" ? { hourlyCap: body.hourlyCap } : {}),
  };
}
