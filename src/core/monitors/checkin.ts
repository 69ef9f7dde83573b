/**
 * Cron check-ins (Sentry's `check_in` envelope item, reference: the captures of @sentry/node and
 * sentry-cli in test/fixtures/monitors/): parsed leniently like every SDK payload, validated
 * strictly where a wrong value would corrupt a schedule. Pure.
 */
import { Cron } from "croner";

export type CheckInStatus = "in_progress" | "ok" | "error" | "timeout" | "missed";
export type ScheduleUnit = "minute" | "hour" | "day" | "week" | "month" | "year";

export type Schedule = { type: "crontab"; value: string } | { type: "interval"; value: number; unit: ScheduleUnit };

/** What a monitor is configured with (Sentry's `monitor_config`; minutes for margin and runtime). */
export interface MonitorConfig {
  schedule: Schedule;
  timezone: string;
  /** minutes after the expected time before a check-in counts as missed */
  checkinMargin: number;
  /** minutes an in_progress check-in may run before it times out */
  maxRuntime: number;
  /** consecutive failures (error, missed, timeout) that open an issue */
  failureIssueThreshold: number;
  /** consecutive successes that resolve it */
  recoveryThreshold: number;
}

export interface CheckIn {
  checkInId: string;
  monitorSlug: string;
  status: "in_progress" | "ok" | "error";
  environment: string;
  release: string | null;
  /** seconds, as the SDK reports it */
  duration: number | null;
  config: MonitorConfig | null;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

// Sentry's defaults for values a monitor_config leaves out.
export const DEFAULT_MARGIN_MIN = 1;
export const DEFAULT_MAX_RUNTIME_MIN = 30;
const MAX_MINUTES = 28 * 24 * 60;
const SLUG_RE = /^[a-z0-9_-]{1,50}$/;
const UNITS: readonly ScheduleUnit[] = ["minute", "hour", "day", "week", "month", "year"];
const STATUSES = new Set(["in_progress", "ok", "error"]);
/**
 * Sentry's "no id" check-in id: an ok/error with it closes the environment's most recent
 * in_progress check-in (a curl job sends `?status=in_progress`, then `?status=ok`), anything else
 * starts a new check-in.
 */
export const ZERO_CHECK_IN_ID = "0".repeat(32);

/** Sentry slugifies the monitor slug the SDK sends (lower case, dashes). */
export function slugify(s: string): string {
  return s
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50);
}

export function parseCheckIn(p: Record<string, unknown>): Parsed<CheckIn> {
  const slug = typeof p.monitor_slug === "string" ? slugify(p.monitor_slug) : "";
  if (!SLUG_RE.test(slug)) return { ok: false, reason: "invalid_monitor_slug" };
  const status = typeof p.status === "string" ? p.status : "";
  if (!STATUSES.has(status)) return { ok: false, reason: "invalid_check_in_status" };
  const id = typeof p.check_in_id === "string" ? p.check_in_id.replaceAll("-", "").toLowerCase() : "";
  if (!/^[0-9a-f]{32}$/.test(id)) return { ok: false, reason: "invalid_check_in_id" };
  let config: MonitorConfig | null = null;
  if (p.monitor_config !== undefined && p.monitor_config !== null) {
    const c = parseMonitorConfig(p.monitor_config);
    if (!c.ok) return c;
    config = c.value;
  }
  const env = typeof p.environment === "string" && p.environment.trim() ? p.environment.trim().slice(0, 64) : "production";
  const duration = typeof p.duration === "number" && Number.isFinite(p.duration) && p.duration >= 0 ? p.duration : null;
  const release = typeof p.release === "string" && p.release ? p.release.slice(0, 200) : null;
  return {
    ok: true,
    value: { checkInId: id, monitorSlug: slug, status: status as CheckIn["status"], environment: env, release, duration, config },
  };
}

/** `monitor_config` from a check-in or our own API (snake_case, Sentry's names). */
export function parseMonitorConfig(v: unknown): Parsed<MonitorConfig> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { ok: false, reason: "invalid_monitor_config" };
  const c = v as Record<string, unknown>;
  const schedule = parseSchedule(c.schedule, c.schedule_type);
  if (!schedule.ok) return schedule;
  const timezone = typeof c.timezone === "string" && c.timezone ? c.timezone : "UTC";
  if (!validTimezone(timezone)) return { ok: false, reason: "invalid_timezone" };
  if (schedule.value.type === "crontab" && !validCrontab(schedule.value.value, timezone)) return { ok: false, reason: "invalid_schedule" };
  return {
    ok: true,
    value: {
      schedule: schedule.value,
      timezone,
      checkinMargin: minutes(c.checkin_margin, DEFAULT_MARGIN_MIN),
      maxRuntime: minutes(c.max_runtime, DEFAULT_MAX_RUNTIME_MIN),
      failureIssueThreshold: Math.max(1, minutes(c.failure_issue_threshold, 1)),
      recoveryThreshold: Math.max(1, minutes(c.recovery_threshold, 1)),
    },
  };
}

function parseSchedule(s: unknown, legacyType: unknown): Parsed<Schedule> {
  // Old SDKs send `schedule_type` next to a bare crontab string or an [n, unit] pair.
  if (typeof s === "string") return { ok: true, value: { type: "crontab", value: s.trim() } };
  if (Array.isArray(s) && legacyType === "interval") return parseSchedule({ type: "interval", value: s[0], unit: s[1] }, undefined);
  if (typeof s !== "object" || s === null) return { ok: false, reason: "invalid_schedule" };
  const o = s as Record<string, unknown>;
  if (o.type === "crontab" && typeof o.value === "string" && o.value.trim())
    return { ok: true, value: { type: "crontab", value: o.value.trim() } };
  if (o.type === "interval") {
    const n = typeof o.value === "number" ? o.value : Number(o.value);
    const unit = o.unit as ScheduleUnit;
    if (Number.isInteger(n) && n >= 1 && n <= 10_000 && UNITS.includes(unit))
      return { ok: true, value: { type: "interval", value: n, unit } };
  }
  return { ok: false, reason: "invalid_schedule" };
}

function minutes(v: unknown, def: number): number {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() ? Number(v) : Number.NaN;
  if (!Number.isFinite(n) || n < 0) return def;
  return Math.min(MAX_MINUTES, Math.round(n));
}

export function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function validCrontab(expr: string, timezone: string): boolean {
  // Sentry takes five fields only (no seconds); croner would accept six or seven.
  if (expr.split(/\s+/).length !== 5 && !expr.startsWith("@")) return false;
  try {
    new Cron(expr, { timezone, paused: true });
    return true;
  } catch {
    return false;
  }
}

/** "0 * * * *" or "every 10 minutes": for lists and issue titles. */
export function describeSchedule(s: Schedule): string {
  if (s.type === "crontab") return s.value;
  return `every ${s.value} ${s.unit}${s.value === 1 ? "" : "s"}`;
}
