/**
 * Sentry's usage statistics from the outcome counters (SPEC §3 "Outcome counters"), in the two
 * shapes dashboards read: the legacy per-project `…/stats/` series (`[[epoch seconds, count], …]`)
 * and the organization's `stats_v2` (`{start, end, intervals, groups: [{by, totals, series}]}`).
 * Pure: the counter rows, the time range and the interval are inputs.
 */
import { AppError } from "./errors";
import type { OutcomeName } from "./outcomes";

export interface UsageRow {
  projectId: number;
  /** start of the hour, epoch ms */
  hour: number;
  category: string;
  outcome: OutcomeName;
  reason: string;
  quantity: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Sentry's legacy stats count events: the error-like categories. */
const EVENT_CATEGORIES = new Set(["error", "default", "security"]);

/** `1h`, `30m`, `14d`, `2w` → ms; undefined for anything else. */
export function parseDuration(v: string): number | undefined {
  const m = /^(\d{1,6})([mhdw])$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { m: 60_000, h: HOUR, d: DAY, w: 7 * DAY }[m[2] as "m" | "h" | "d" | "w"];
  return n > 0 ? n * unit : undefined;
}

/** Interval of a series: whole hours or days only (the counters are hourly). */
export function parseInterval(v: string | null, fallback: number): number {
  if (!v) return fallback;
  const ms = parseDuration(v) ?? (/^\d+$/.test(v) ? Number(v) * 1000 : undefined);
  if (ms === undefined || ms < HOUR || ms % HOUR !== 0) {
    throw new AppError("validation_failed", "interval must be a whole number of hours (1h, 1d…).", {
      fields: [{ field: "interval", rule: "hours", message: "Use 1h, 6h, 1d or another whole number of hours." }],
    });
  }
  return ms;
}

function bucketStarts(start: number, end: number, interval: number): number[] {
  const out: number[] = [];
  for (let t = Math.floor(start / interval) * interval; t < end && out.length < 10_000; t += interval) out.push(t);
  return out;
}

export type LegacyStat = "received" | "rejected" | "blacklisted";

/** What each legacy stat counts (client-discarded items never reached the server). */
function countsFor(stat: LegacyStat, outcome: OutcomeName): boolean {
  if (stat === "rejected") return outcome === "rate_limited";
  if (stat === "blacklisted") return outcome === "filtered";
  return outcome !== "client_discard";
}

/** The legacy project series: `[[bucket start in epoch seconds, count], …]`, every bucket present. */
export function legacySeries(
  rows: UsageRow[],
  q: { stat: LegacyStat; start: number; end: number; interval: number },
): Array<[number, number]> {
  const buckets = bucketStarts(q.start, q.end, q.interval);
  const counts = new Map(buckets.map((b) => [b, 0]));
  for (const r of rows) {
    if (!EVENT_CATEGORIES.has(r.category) || !countsFor(q.stat, r.outcome)) continue;
    const b = Math.floor(r.hour / q.interval) * q.interval;
    if (counts.has(b)) counts.set(b, (counts.get(b) ?? 0) + r.quantity);
  }
  return buckets.map((b) => [b / 1000, counts.get(b) ?? 0]);
}

export type GroupBy = "outcome" | "category" | "reason" | "project";
const GROUP_BYS: readonly GroupBy[] = ["outcome", "category", "reason", "project"];

export interface StatsV2Query {
  start: number;
  end: number;
  interval: number;
  groupBy: GroupBy[];
  /** Sentry's field names: `sum(quantity)` (items) or `sum(times_seen)` (the same here: one row per item) */
  field: string;
  categories?: string[];
  outcomes?: string[];
  projectIds?: number[];
}

export function parseGroupBy(values: string[]): GroupBy[] {
  const bad = values.find((v) => !(GROUP_BYS as readonly string[]).includes(v));
  if (bad !== undefined) {
    throw new AppError("validation_failed", `groupBy "${bad}" is not one of ${GROUP_BYS.join(", ")}.`, {
      fields: [{ field: "groupBy", rule: "enum", message: `One of ${GROUP_BYS.join(", ")}.` }],
    });
  }
  return [...new Set(values)] as GroupBy[];
}

export function checkField(field: string | null): string {
  if (field === "sum(quantity)" || field === "sum(times_seen)") return field;
  throw new AppError("validation_failed", "field must be sum(quantity) or sum(times_seen).", {
    fields: [{ field: "field", rule: "enum", message: "sum(quantity) or sum(times_seen)." }],
  });
}

/** Sentry's stats_v2 answer: one group per distinct `groupBy` value combination. */
export function statsV2(rows: UsageRow[], q: StatsV2Query) {
  const buckets = bucketStarts(q.start, q.end, q.interval);
  const index = new Map(buckets.map((b, i) => [b, i]));
  const groups = new Map<string, { by: Record<string, string | number>; series: number[]; total: number }>();
  for (const r of rows) {
    if (r.outcome === "client_discard" && !q.outcomes?.includes("client_discard")) continue;
    if (q.categories && !q.categories.includes(r.category)) continue;
    if (q.outcomes && !q.outcomes.includes(r.outcome)) continue;
    if (q.projectIds && !q.projectIds.includes(r.projectId)) continue;
    const i = index.get(Math.floor(r.hour / q.interval) * q.interval);
    if (i === undefined) continue;
    const by: Record<string, string | number> = {};
    for (const g of q.groupBy) by[g] = g === "project" ? r.projectId : r[g];
    const key = JSON.stringify(by);
    let group = groups.get(key);
    if (!group) {
      group = { by, series: buckets.map(() => 0), total: 0 };
      groups.set(key, group);
    }
    group.series[i] += r.quantity;
    group.total += r.quantity;
  }
  return {
    start: new Date(buckets[0] ?? q.start).toISOString(),
    end: new Date(q.end).toISOString(),
    intervals: buckets.map((b) => new Date(b).toISOString()),
    groups: [...groups.values()].map((g) => ({ by: g.by, totals: { [q.field]: g.total }, series: { [q.field]: g.series } })),
  };
}

/** `events-dropped`'s datasets and the outcome categories each counts (Sentry's data categories). */
export const DROPPED_DATASETS: Readonly<Record<string, readonly string[]>> = {
  errors: ["error", "default", "security"],
  spans: ["span", "transaction"],
  logs: ["log_item"],
  tracemetrics: ["trace_metric"],
  uptime_results: ["uptime"],
  profile_functions: ["profile", "profile_chunk"],
};

export interface DroppedQuery {
  dataset: string;
  start: number;
  end: number;
  interval: number;
  /** narrow the dropped side to one outcome and/or reason; the accepted side is always whole */
  outcome?: string;
  reason?: string;
}

/**
 * The interval of `events-dropped`: Sentry picks a default for one it cannot use, so a bad value
 * is no error here; buckets are whole hours (the counters are hourly).
 */
export function droppedInterval(v: string | null, span: number): number {
  const asked = v ? (parseDuration(v) ?? (/^\d+$/.test(v) ? Number(v) * 1000 : undefined)) : undefined;
  if (asked !== undefined && asked >= HOUR && asked % HOUR === 0) return asked;
  return span > 2 * DAY ? DAY : HOUR;
}

/** Filtering is what a project chose (inbound filters, sampling); the rest was not wanted. */
function dropTags(outcome: string): string[] {
  return outcome === "filtered" || outcome === "client_discard" ? ["intentional"] : ["unintentional"];
}

/**
 * Sentry's `events-dropped` answer: per bucket, category, outcome and reason, the dropped counts
 * and, beside them, the accepted ones (so a caller can compute the dropped share).
 */
export function droppedEvents(rows: UsageRow[], q: DroppedQuery) {
  const categories = new Set(DROPPED_DATASETS[q.dataset] ?? []);
  const cells = new Map<string, { type: string; category: string; outcome: string; reason: string; start: number; count: number }>();
  for (const r of rows) {
    if (!categories.has(r.category) || r.hour < Math.floor(q.start / HOUR) * HOUR || r.hour >= q.end) continue;
    const accepted = r.outcome === "accepted";
    if (!accepted && ((q.outcome && r.outcome !== q.outcome) || (q.reason && r.reason !== q.reason))) continue;
    const start = Math.floor(r.hour / q.interval) * q.interval;
    const key = `${start}|${r.category}|${r.outcome}|${r.reason}`;
    const cell = cells.get(key) ?? {
      type: accepted ? "accepted" : "dropped",
      category: r.category,
      outcome: r.outcome,
      reason: r.reason,
      start,
      count: 0,
    };
    cell.count += r.quantity;
    cells.set(key, cell);
  }
  const all = [...cells.values()]
    .sort((a, b) => a.start - b.start || a.category.localeCompare(b.category) || a.outcome.localeCompare(b.outcome))
    .map((c) => ({ ...c, end: c.start + q.interval, ...(c.type === "dropped" ? { tags: dropTags(c.outcome) } : {}) }));
  return {
    meta: { dataset: q.dataset, start: q.start, end: q.end, interval: q.interval / 1000 },
    droppedEvents: all.filter((c) => c.type === "dropped"),
    acceptedEvents: all.filter((c) => c.type === "accepted"),
  };
}
