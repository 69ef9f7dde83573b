/**
 * Pure rule evaluation: which of a rule's triggers an event fires, whether its filters hold, the
 * frequency window and the per-issue throttle. The digest calls these inside its transaction
 * (src/pipeline/alert-triggers.ts); time is an argument.
 */
import type { SearchCondition } from "../search/parse-query";
import { wildcardMatch } from "../search/wildcard";
import type { AlertRule, AlertSubject, FrequencyTrigger, RuleFilters, RuleIssueState, TriggerKind } from "./types";

const MINUTE = 60_000;

/** What the lifecycle decided about the issue for this event. */
export interface LifecycleFacts {
  created: boolean;
  regressed: boolean;
  unignored: boolean;
}

/** The non-frequency trigger this event fires for the rule, if any (first match wins: one message). */
export function lifecycleTrigger(rule: Pick<AlertRule, "triggers">, facts: LifecycleFacts): TriggerKind | undefined {
  const t = rule.triggers;
  if (facts.created && t.newIssue) return "new_issue";
  if (facts.regressed && t.regression) return "regression";
  if (facts.unignored && t.unignored) return "unignored";
  return undefined;
}

/**
 * The trigger an event fires for the rule, given the frequency window's outcome for this event
 * (`fired`: crossed the threshold now; `holds`: over it within the current window).
 * "any" (Sentry's actionMatch any, the default): the first trigger that holds — a lifecycle
 * trigger, else the frequency crossing. "all": every issue trigger the rule sets must hold for
 * this very event (as Sentry's actionMatch all evaluates its conditions on one event); the
 * release-level crash-free trigger is evaluated on its own and never takes part.
 */
export function ruleTrigger(
  rule: Pick<AlertRule, "triggers">,
  facts: LifecycleFacts,
  frequency: { fired: boolean; holds: boolean },
): TriggerKind | undefined {
  const t = rule.triggers;
  if (t.match !== "all") return lifecycleTrigger(rule, facts) ?? (frequency.fired ? "frequency" : undefined);
  const conditions: Array<[set: boolean, holds: boolean, kind: TriggerKind]> = [
    [t.newIssue, facts.created, "new_issue"],
    [t.regression, facts.regressed, "regression"],
    [t.unignored, facts.unignored, "unignored"],
    [t.frequency !== null, frequency.holds, "frequency"],
  ];
  const set = conditions.filter(([on]) => on);
  if (set.length === 0 || !set.every(([, holds]) => holds)) return undefined;
  return set[0]?.[2];
}

/**
 * One step of the frequency window on the issue's own counters (the digest keeps event and user
 * counts on the issue; no event scan). A window opens at the first event after the previous one
 * ended; it fires once when the counts since its start exceed the threshold ("more than N events",
 * as the form, the docs and Sentry's EventFrequencyCondition say: N = 3 fires on the 4th) — an
 * exploding issue sends one message per window, not one per event.
 */
export function frequencyStep(
  state: RuleIssueState | undefined,
  counts: { eventCount: number; userCount: number; newUser: boolean; firstSeen: number },
  trig: FrequencyTrigger,
  now: number,
): { state: RuleIssueState; fired: boolean; changed: boolean } {
  const windowMs = Math.max(1, trig.minutes) * MINUTE;
  let s: RuleIssueState;
  // Within a window nothing changes until it fires: the caller writes only when `changed`.
  let changed = false;
  if (!state || now - state.windowStart >= windowMs) {
    changed = true;
    // An issue younger than the window: every one of its events is in it. Otherwise the window
    // starts with this event and the counts before it are the base.
    const young = !state && counts.firstSeen > now - windowMs;
    s = {
      windowStart: young ? counts.firstSeen : now,
      baseEvents: young ? 0 : counts.eventCount - 1,
      baseUsers: young ? 0 : counts.userCount - (counts.newUser ? 1 : 0),
      firedInWindow: false,
      lastNotifiedAt: state?.lastNotifiedAt ?? null,
    };
  } else s = { ...state };
  if (s.firedInWindow) return { state: s, fired: false, changed };
  const events = counts.eventCount - s.baseEvents;
  const users = counts.userCount - s.baseUsers;
  const fired = (trig.events > 0 && events > trig.events) || (trig.users > 0 && users > trig.users);
  if (fired) s.firedInWindow = true;
  return { state: s, fired, changed: changed || fired };
}

/**
 * Whether the frequency trigger can fire at all with the issue's totals: a window never holds
 * more than the issue has, so at or below the threshold the (rule, issue) counters need not be read.
 */
export function frequencyReachable(trig: FrequencyTrigger, eventCount: number, userCount: number): boolean {
  return (trig.events > 0 && eventCount > trig.events) || (trig.users > 0 && userCount > trig.users);
}

/** "At most once per issue every T minutes". */
export function throttleAllows(lastNotifiedAt: number | null | undefined, throttleMinutes: number, now: number): boolean {
  if (throttleMinutes <= 0 || lastNotifiedAt === null || lastNotifiedAt === undefined) return true;
  return now - lastNotifiedAt >= throttleMinutes * MINUTE;
}

/** The rule's filters (the search query already compiled by the caller). */
export function filtersPass(f: RuleFilters, query: SearchCondition[], subject: AlertSubject, now: number): boolean {
  const e = subject.event;
  if (f.environments.length > 0 && !f.environments.includes(e.environment ?? "")) return false;
  if (f.levels.length > 0 && !f.levels.includes(e.level)) return false;
  for (const t of f.tags) {
    const v = tagValue(e.tags, t.key);
    if (v === undefined) return false;
    if (t.op === "equals" ? v !== t.value : !v.toLowerCase().includes(t.value.toLowerCase())) return false;
  }
  if (f.maxIssueAgeMinutes !== null && now - subject.issue.firstSeen > f.maxIssueAgeMinutes * MINUTE) return false;
  if (f.inAppOnly && !e.hasInAppFrame) return false;
  return query.every((c) => conditionHolds(c, subject));
}

function tagValue(tags: Array<[string, string]>, key: string): string | undefined {
  for (const [k, v] of tags) if (k === key) return v;
  return undefined;
}

/** The stream's conditions, judged on one issue and event in memory (the stream judges them in SQL). */
export function conditionHolds(c: SearchCondition, s: AlertSubject): boolean {
  switch (c.kind) {
    case "status": {
      const hit = c.values.some((v) => v === s.issue.status || v === s.issue.substatus);
      return hit !== c.negated;
    }
    // The digest does not read assignees: an alerting issue counts as unassigned.
    case "assigned":
      return c.values.includes("none") !== c.negated;
    case "level":
      return c.values.includes(s.event.level) !== c.negated;
    case "project":
      return c.values.includes(s.projectSlug) !== c.negated;
    case "type":
      return c.values.includes(s.issue.type ?? "error") !== c.negated;
    case "tag": {
      const v = tagValue(s.event.tags, c.key);
      const hit = v !== undefined && c.values.some((p) => wildcardMatch(v, p));
      return hit !== c.negated;
    }
    case "has": {
      const hit = tagValue(s.event.tags, c.key) !== undefined;
      return hit !== c.negated;
    }
    case "digest": {
      const v = tagValue(s.event.tags, "digest");
      return (v !== undefined && c.values.includes(v)) !== c.negated;
    }
    case "time": {
      const at = c.field === "firstSeen" ? s.issue.firstSeen : s.issue.lastSeen;
      return c.op === "gte" ? at >= c.at : at <= c.at;
    }
    case "count": {
      const n = s.issue.eventCount;
      const hit =
        c.op === "gt"
          ? n > c.value
          : c.op === "gte"
            ? n >= c.value
            : c.op === "lt"
              ? n < c.value
              : c.op === "lte"
                ? n <= c.value
                : n === c.value;
      return hit !== c.negated;
    }
    case "text": {
      const needle = c.value.toLowerCase();
      return s.issue.title.toLowerCase().includes(needle) || s.issue.culprit.toLowerCase().includes(needle);
    }
  }
}

/** Whether the rule's hourly cap leaves room for another message. */
export function underHourlyCap(sentLastHour: number, hourlyCap: number): boolean {
  return hourlyCap <= 0 || sentLastHour < hourlyCap;
}
