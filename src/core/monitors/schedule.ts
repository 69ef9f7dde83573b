/**
 * When a monitor expects its next check-in. Crontabs are evaluated by croner in the monitor's
 * timezone (DST correct); intervals are counted from the last check-in, as Sentry does. Pure: the
 * time is always an argument.
 */
import { Cron } from "croner";
import type { MonitorConfig, Schedule, ScheduleUnit } from "./checkin";

const MINUTE = 60_000;
const UNIT_MS: Record<Exclude<ScheduleUnit, "month" | "year">, number> = {
  minute: MINUTE,
  hour: 60 * MINUTE,
  day: 24 * 60 * MINUTE,
  week: 7 * 24 * 60 * MINUTE,
};

/** The first scheduled time strictly after `after` (epoch ms). */
export function nextScheduled(schedule: Schedule, timezone: string, after: number): number {
  if (schedule.type === "interval") return addInterval(after, schedule.value, schedule.unit);
  const next = new Cron(schedule.value, { timezone, paused: true }).nextRun(new Date(after));
  // A crontab that never fires again (e.g. 30 Feb): expect nothing for a year.
  return next ? next.getTime() : after + 365 * UNIT_MS.day;
}

function addInterval(from: number, n: number, unit: ScheduleUnit): number {
  if (unit === "month" || unit === "year") {
    const d = new Date(from);
    if (unit === "month") d.setUTCMonth(d.getUTCMonth() + n);
    else d.setUTCFullYear(d.getUTCFullYear() + n);
    return d.getTime();
  }
  return from + n * UNIT_MS[unit];
}

export interface Expectation {
  /** when the next check-in is due */
  nextCheckIn: number;
  /** after this it is missed (due + margin) */
  nextCheckInLatest: number;
}

/** After a check-in at `at`: the next expected one. */
export function expectationAfter(config: MonitorConfig, at: number): Expectation {
  const next = nextScheduled(config.schedule, config.timezone, at);
  return { nextCheckIn: next, nextCheckInLatest: next + Math.max(1, config.checkinMargin) * MINUTE };
}

/**
 * The expected times that passed without a check-in by `now`, starting at `due` (at most `cap`,
 * the oldest first), and the expectation that follows them. A process that was down for a week on
 * a per-minute schedule marks `cap` misses, then skips to the present instead of walking ten
 * thousand ticks inside a write transaction.
 */
export function missedSince(config: MonitorConfig, due: number, now: number, cap = 20): { missed: number[]; next: Expectation } {
  const margin = Math.max(1, config.checkinMargin) * MINUTE;
  const missed: number[] = [];
  let at = due;
  while (at + margin <= now) {
    if (missed.length === cap) {
      // The first tick whose deadline is still ahead.
      at = nextScheduled(config.schedule, config.timezone, now - margin);
      break;
    }
    missed.push(at);
    at = nextScheduled(config.schedule, config.timezone, at);
  }
  return { missed, next: { nextCheckIn: at, nextCheckInLatest: at + margin } };
}

/** When an in_progress check-in started at `at` times out. */
export function timeoutAt(config: MonitorConfig, at: number): number {
  return at + Math.max(1, config.maxRuntime) * MINUTE;
}

/**
 * How a check-in moves a monitor environment's streak: failures open an issue after
 * `failureIssueThreshold` in a row, successes resolve it after `recoveryThreshold` in a row.
 */
export interface Streak {
  failures: number;
  successes: number;
}

export function isFailure(status: string): boolean {
  return status === "error" || status === "missed" || status === "timeout";
}

export function nextStreak(s: Streak, status: string): Streak {
  if (isFailure(status)) return { failures: s.failures + 1, successes: 0 };
  if (status === "ok") return { failures: 0, successes: s.successes + 1 };
  return s;
}
