/**
 * The issue state machine (SPEC §4), pure: every function takes the state and the time and
 * returns the next state plus the activity rows that record the change.
 *
 *   unresolved/new ──7 days──> unresolved/ongoing
 *   unresolved ──resolve(now | in release R | in next release)──> resolved
 *   resolved ──event the resolution does not cover──> unresolved/regressed ──7 days──> ongoing
 *   unresolved ──ignore(forever | until time | until N events | until N users [in window])──> ignored
 *   ignored ──condition met──> unresolved/ongoing
 *   resolved | ignored ──unresolve──> unresolved/ongoing
 */
import { isReleaseLater, semverComparable } from "./release-order";
import type {
  ActivityDraft,
  IgnoreCommand,
  IgnoreCondition,
  IssueState,
  LifecycleConfig,
  LifecycleEvent,
  Resolution,
  ResolveCommand,
  Transition,
} from "./types";

const MINUTE = 60_000;

const unchanged = (state: IssueState): Transition => ({ state, activities: [], changed: false });

function stateChange(from: IssueState, to: IssueState, actorUserId: string | null, extra: Record<string, unknown> = {}): ActivityDraft {
  return {
    kind: "state_change",
    actorUserId,
    data: { from: { status: from.status, substatus: from.substatus }, to: { status: to.status, substatus: to.substatus }, ...extra },
  };
}

function toResolution(cmd: ResolveCommand): Resolution {
  if (cmd.kind === "now") return { kind: "now" };
  if (cmd.kind === "in_release") return { kind: "in_release", release: cmd.release, releaseOrder: cmd.releaseOrder ?? null };
  return { kind: "in_next_release", release: cmd.release ?? null, releaseOrder: cmd.releaseOrder ?? null };
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function resolve(issue: IssueState, cmd: ResolveCommand, actorUserId: string | null, now: number): Transition {
  const resolution = toResolution(cmd);
  if (issue.status === "resolved" && sameJson(issue.resolution, resolution)) return unchanged(issue);
  const state: IssueState = {
    ...issue,
    status: "resolved",
    substatus: "resolved",
    statusChangedAt: now,
    resolvedAt: now,
    resolution,
    ignore: null,
  };
  return { state, activities: [stateChange(issue, state, actorUserId, { resolution })], changed: true };
}

function toIgnoreCondition(issue: IssueState, cmd: IgnoreCommand, now: number): IgnoreCondition {
  switch (cmd.kind) {
    case "forever":
      return { kind: "forever" };
    case "until_time":
      return { kind: "until_time", until: cmd.until };
    case "until_events":
      return { kind: "until_events", count: cmd.count, windowMinutes: cmd.windowMinutes ?? null, baseline: issue.eventCount, since: now };
    case "until_users":
      return { kind: "until_users", count: cmd.count, windowMinutes: cmd.windowMinutes ?? null, baseline: issue.userCount, since: now };
  }
}

export function ignore(issue: IssueState, cmd: IgnoreCommand, actorUserId: string | null, now: number): Transition {
  const condition = toIgnoreCondition(issue, cmd, now);
  const state: IssueState = {
    ...issue,
    status: "ignored",
    substatus: condition.kind === "forever" ? "archived_forever" : "archived_until_condition_met",
    statusChangedAt: now,
    resolvedAt: null,
    resolution: null,
    ignore: condition,
  };
  return { state, activities: [stateChange(issue, state, actorUserId, { ignore: condition })], changed: true };
}

/**
 * Back to unresolved/ongoing (a person reopening is not a regression), or to the substatus the
 * issue had before (Undo of a resolve must not age a `new` issue into `ongoing`).
 */
export function unresolve(
  issue: IssueState,
  actorUserId: string | null,
  now: number,
  substatus: "new" | "ongoing" | "regressed" = "ongoing",
): Transition {
  if (issue.status === "unresolved") return unchanged(issue);
  const state = reopened(issue, substatus, now);
  return { state, activities: [stateChange(issue, state, actorUserId)], changed: true };
}

function reopened(issue: IssueState, substatus: "new" | "ongoing" | "regressed", now: number): IssueState {
  return { ...issue, status: "unresolved", substatus, statusChangedAt: now, resolvedAt: null, resolution: null, ignore: null };
}

// ---------------------------------------------------------------------------------------------
// Events and time

/**
 * Does the resolution cover this event (no regression)? An event received before the resolution
 * never regresses it (it was queued while someone resolved). "Now" covers nothing newer. A release
 * resolution covers events without a release (an app that stopped naming releases is not newer)
 * and events from the resolving release or earlier ones.
 */
export function resolutionCovers(issue: IssueState, event: LifecycleEvent): boolean {
  const res = issue.resolution;
  if (issue.resolvedAt !== null && event.receivedAt < issue.resolvedAt) return true;
  if (!res || res.kind === "now") return false;
  if (event.release === null) return true;
  if (res.release === null) return false; // next release after none: any named release is newer
  return !isReleaseLater({ version: event.release, order: event.releaseOrder ?? null }, { version: res.release, order: res.releaseOrder });
}

/** True when deciding about this event needs its release's creation time (not plain semver). */
export function needsReleaseOrder(issue: IssueState, release: string | null): boolean {
  const res = issue.resolution;
  if (issue.status !== "resolved" || !res || res.kind === "now" || release === null || res.release === null) return false;
  return release !== res.release && !semverComparable(release, res.release);
}

/** Start of the counting window of a windowed ignore (undefined: no window counts needed). */
export function windowSince(issue: IssueState, now: number): number | undefined {
  const ig = issue.ignore;
  if (issue.status !== "ignored" || !ig || (ig.kind !== "until_events" && ig.kind !== "until_users") || ig.windowMinutes === null)
    return undefined;
  return Math.max(ig.since, now - ig.windowMinutes * MINUTE);
}

/** Why an ignore condition is met now, or undefined. */
export function ignoreMet(
  issue: IssueState,
  now: number,
  windowCounts?: { events: number; users: number },
): "time" | "events" | "users" | undefined {
  const ig = issue.ignore;
  if (!ig) return undefined;
  switch (ig.kind) {
    case "forever":
      return undefined;
    case "until_time":
      return now >= ig.until ? "time" : undefined;
    case "until_events": {
      const n = ig.windowMinutes === null ? issue.eventCount - ig.baseline : windowCounts?.events;
      return n !== undefined && n >= ig.count ? "events" : undefined;
    }
    case "until_users": {
      const n = ig.windowMinutes === null ? issue.userCount - ig.baseline : windowCounts?.users;
      return n !== undefined && n >= ig.count ? "users" : undefined;
    }
  }
}

/** When the next time-based transition is due (null: none pending). */
export function dueAt(issue: IssueState, cfg: LifecycleConfig): number | null {
  if (issue.status === "ignored") return issue.ignore?.kind === "until_time" ? issue.ignore.until : null;
  if (issue.status !== "unresolved") return null;
  if (issue.substatus === "new") return issue.firstSeen + cfg.ongoingAfterMs;
  if (issue.substatus === "regressed") return (issue.statusChangedAt ?? issue.firstSeen) + cfg.ongoingAfterMs;
  return null;
}

/** Cheap test for the digest: can this event change anything? (false for most events) */
export function eventNeedsWork(issue: IssueState, now: number, cfg: LifecycleConfig): boolean {
  if (issue.status !== "unresolved") return true;
  const due = dueAt(issue, cfg);
  return due !== null && due <= now;
}

/** Time-based transitions: new/regressed → ongoing after the configured age; ignore until a time. */
export function onTick(issue: IssueState, now: number, cfg: LifecycleConfig): Transition {
  const due = dueAt(issue, cfg);
  if (due === null || due > now) return unchanged(issue);
  if (issue.status === "ignored") {
    const state = reopened(issue, "ongoing", now);
    return { state, activities: [{ kind: "unignored", actorUserId: null, data: { reason: "time", ignore: issue.ignore } }], changed: true };
  }
  const state: IssueState = { ...issue, substatus: "ongoing", statusChangedAt: now };
  return { state, activities: [stateChange(issue, state, null, { reason: "age" })], changed: true };
}

/**
 * A new event was counted on the issue (`issue.eventCount`/`userCount` include it): regression
 * when resolved and not covered; unignore when the ignore condition is met; then time-based
 * transitions that are due.
 */
export function onEvent(issue: IssueState, event: LifecycleEvent, now: number, cfg: LifecycleConfig): Transition {
  let state = issue;
  const activities: ActivityDraft[] = [];
  if (state.status === "resolved" && !resolutionCovers(state, event)) {
    activities.push({ kind: "regression", actorUserId: null, data: { release: event.release, resolution: state.resolution } });
    state = reopened(state, "regressed", now);
  } else if (state.status === "ignored") {
    const reason = ignoreMet(state, now, event.windowCounts);
    if (reason) {
      activities.push({ kind: "unignored", actorUserId: null, data: { reason, ignore: state.ignore } });
      state = reopened(state, "ongoing", now);
    }
  }
  const tick = onTick(state, now, cfg);
  return { state: tick.state, activities: [...activities, ...tick.activities], changed: activities.length > 0 || tick.changed };
}
