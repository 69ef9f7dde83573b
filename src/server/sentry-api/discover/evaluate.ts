/**
 * Runs a Discover plan (plan.ts) over rows already read: filters the conditions storage
 * could not, groups by the non-aggregate fields when an aggregate is asked, sorts, pages, and
 * writes the values as Sentry's query API does (dates ISO, durations in ms). Also the
 * `events-stats` buckets. Pure: the rows come with accessors, no I/O.
 */
import { type WildcardMatcher, wildcardMatcher } from "../../../core/search/wildcard";
import type { DiscoverField, DiscoverFilter, DiscoverPlan } from "./plan";

/** One stored row as the plan reads it: dates are epoch ms. */
export interface DiscoverRow {
  column(name: string): string | number | boolean | null;
  tag(key: string): string | null;
  /** what free text searches (title, culprit, message, span description…) */
  text(): string;
  /** epoch ms the row belongs to (bucketing) */
  at(): number;
}

type Value = string | number | boolean | null;

export function fieldValue(row: DiscoverRow, f: DiscoverField): Value {
  if (f.kind === "tag") return row.tag(f.key);
  if (f.kind === "column") return row.column(f.column);
  return null;
}

/**
 * The matchers of a filter's values (or of the free-text words), built once per plan rather than
 * once per row: a `*` pattern matches case-insensitively, a plain value exactly, as Sentry's do.
 */
const matchersOf = new WeakMap<object, WildcardMatcher[]>();

function matchers(owner: object, patterns: string[], wrap: (p: string) => string = (p) => p): WildcardMatcher[] {
  let found = matchersOf.get(owner);
  if (!found) {
    found = patterns.map((p) => wrap(p)).map((p) => wildcardMatcher(p, { caseInsensitive: p.includes("*") }));
    matchersOf.set(owner, found);
  }
  return found;
}

function comparable(f: DiscoverField, text: string): number | null {
  if (f.type === "date") {
    const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) || text.length <= 10 ? text : `${text}Z`);
    return Number.isNaN(t) ? null : t;
  }
  const ms = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text);
  if (!ms) return null;
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[ms[2] ?? "ms"] as number;
  return Number(ms[1]) * (f.type === "duration" ? scale : 1);
}

function filterHolds(row: DiscoverRow, flt: DiscoverFilter): boolean {
  const v = fieldValue(row, flt.field);
  let hit: boolean;
  if (flt.op !== "eq") {
    const bound = comparable(flt.field, flt.values[0] ?? "");
    const n = typeof v === "number" ? v : null;
    hit =
      bound !== null &&
      n !== null &&
      { gt: n > bound, gte: n >= bound, lt: n < bound, lte: n <= bound }[flt.op as "gt" | "gte" | "lt" | "lte"];
  } else if (v === null || v === "") hit = flt.values.includes("") || false;
  else {
    const s = String(v);
    hit = matchers(flt, flt.values).some((m) => m(s));
  }
  return flt.negated ? !hit : hit;
}

export function rowMatches(plan: Pick<DiscoverPlan, "filters" | "text">, row: DiscoverRow): boolean {
  for (const f of plan.filters) if (!filterHolds(row, f)) return false;
  if (plan.text.length > 0) {
    const hay = row.text();
    for (const m of matchers(plan.text, plan.text, (w) => `*${w}*`)) if (!m(hay)) return false;
  }
  return true;
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] as number;
}

/** A sample of the metric `fn(value,<name>,<type>,<unit>)` names (the unit only when given). */
function isMetric(r: DiscoverRow, m: { name: string; type: string; unit: string | null }): boolean {
  return (
    r.column("metric.name") === m.name && r.column("metric.type") === m.type && (m.unit === null || r.column("metric.unit") === m.unit)
  );
}

/** One aggregate over a group's rows; `windowMs` is the time the rows were read over (epm, eps). */
export function aggregate(f: DiscoverField & { kind: "aggregate" }, all: DiscoverRow[], windowMs = 0): Value {
  const rows = f.metric ? all.filter((r) => isMetric(r, f.metric as NonNullable<typeof f.metric>)) : all;
  switch (f.fn) {
    case "per_minute":
    case "per_second": {
      // Counters add up their values; other metrics count their samples.
      if (windowMs <= 0) return null;
      const total = f.metric?.type === "counter" ? rows.reduce((a, r) => a + (Number(r.column("value")) || 0), 0) : rows.length;
      return total / (windowMs / (f.fn === "per_minute" ? 60_000 : 1000));
    }
    case "count":
      return rows.length;
    case "epm":
    case "eps":
      return windowMs > 0 ? rows.length / (windowMs / (f.fn === "epm" ? 60_000 : 1000)) : null;
    case "failure_rate": {
      // Sentry's: the share of spans whose status is neither ok, cancelled nor unknown.
      if (rows.length === 0) return 0;
      const failed = rows.filter((r) => {
        const st = r.column("span.status");
        return typeof st === "string" && !["ok", "cancelled", "unknown", "unset", ""].includes(st);
      }).length;
      return failed / rows.length;
    }
    case "count_unique": {
      const arg = f.arg as DiscoverField;
      const seen = new Set<string>();
      for (const r of rows) {
        const v = fieldValue(r, arg);
        if (v !== null && v !== "") seen.add(String(v));
      }
      return seen.size;
    }
    case "last_seen":
    case "first_seen": {
      if (rows.length === 0) return null;
      const ts = rows.map((r) => r.at());
      return f.fn === "last_seen" ? Math.max(...ts) : Math.min(...ts);
    }
    default: {
      const arg = f.arg as DiscoverField;
      const nums = rows.map((r) => fieldValue(r, arg)).filter((v): v is number => typeof v === "number" && Number.isFinite(v));
      if (nums.length === 0) return f.fn === "sum" ? 0 : null;
      if (f.fn === "sum") return nums.reduce((a, b) => a + b, 0);
      if (f.fn === "avg") return nums.reduce((a, b) => a + b, 0) / nums.length;
      if (f.fn === "min") return nums.reduce((a, b) => Math.min(a, b));
      if (f.fn === "max") return nums.reduce((a, b) => Math.max(a, b));
      return percentile(
        nums.sort((a, b) => a - b),
        Number(f.fn.slice(1)),
      );
    }
  }
}

/** Sentry's output form: ISO dates, everything else as is. */
function output(f: DiscoverField, v: Value): Value {
  if (v === null) return null;
  if (f.type === "date" && typeof v === "number") return new Date(v).toISOString().replace(/\.\d{3}Z$/, "+00:00");
  return v;
}

function compare(a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

export interface DiscoverResult {
  data: Array<Record<string, Value>>;
  hasMore: boolean;
}

/** The page: rows (already filtered) → grouped, sorted, sliced, formatted. */
export function evaluate(plan: DiscoverPlan, rows: DiscoverRow[]): DiscoverResult {
  let records: Array<Record<string, Value>>;
  if (plan.aggregated) {
    const groups = new Map<string, DiscoverRow[]>();
    for (const r of rows) {
      const key = JSON.stringify(plan.groupBy.map((f) => fieldValue(r, f)));
      const g = groups.get(key);
      if (g) g.push(r);
      else groups.set(key, [r]);
    }
    // No row and no group-by: Sentry still answers one row (count() = 0).
    if (groups.size === 0 && plan.groupBy.length === 0) groups.set("[]", []);
    records = [...groups.values()].map((g) => {
      const rec: Record<string, Value> = {};
      for (const f of plan.fields)
        rec[f.name] = f.kind === "aggregate" ? aggregate(f, g, plan.range.end - plan.range.start) : g[0] ? fieldValue(g[0], f) : null;
      return rec;
    });
  } else {
    records = rows.map((r) => {
      const rec: Record<string, Value> = {};
      for (const f of plan.fields) rec[f.name] = fieldValue(r, f);
      if (plan.sort && !(plan.sort.field.name in rec)) rec[`\u0000${plan.sort.field.name}`] = fieldValue(r, plan.sort.field);
      return rec;
    });
  }
  const sort = plan.sort;
  if (sort) {
    const key = sort.field.name in (records[0] ?? {}) ? sort.field.name : `\u0000${sort.field.name}`;
    records.sort((a, b) => {
      const c = compare(a[key] ?? null, b[key] ?? null);
      // Nulls last in both directions, as Sentry does.
      if (a[key] === null || b[key] === null) return c;
      return sort.desc ? -c : c;
    });
  }
  const page = records.slice(plan.offset, plan.offset + plan.limit);
  const data = page.map((rec) => {
    const out: Record<string, Value> = {};
    for (const f of plan.fields) out[f.name] = output(f, rec[f.name] ?? null);
    return out;
  });
  return { data, hasMore: records.length > plan.offset + plan.limit };
}

/** `events-stats`: one series per axis, `[[unixSeconds, [{count}]], …]` from start to end. */
export function statsSeries(
  axes: Array<DiscoverField & { kind: "aggregate" }>,
  rows: DiscoverRow[],
  range: { start: number; end: number },
  interval: number,
): Map<string, Array<[number, Array<{ count: Value }>]>> {
  const first = Math.floor(range.start / interval) * interval;
  const n = Math.max(1, Math.ceil((range.end - first) / interval));
  const buckets: DiscoverRow[][] = Array.from({ length: n }, () => []);
  for (const r of rows) {
    const i = Math.floor((r.at() - first) / interval);
    if (i >= 0 && i < n) buckets[i]?.push(r);
  }
  const out = new Map<string, Array<[number, Array<{ count: Value }>]>>();
  for (const axis of axes) {
    out.set(
      axis.name,
      buckets.map((b, i) => {
        const v = aggregate(axis, b, interval);
        // Sentry charts 0 for an empty bucket of any function.
        return [Math.floor((first + i * interval) / 1000), [{ count: v ?? 0 }]];
      }),
    );
  }
  return out;
}

export interface TopGroup {
  /** Sentry's result key: the group's values joined by `,` (null as `None`) */
  key: string;
  rows: DiscoverRow[];
}

/** Sentry's key of the rows outside the top groups (`excludeOther=0`). */
export const OTHER_KEY = "Other";

/**
 * `events-stats` with `topEvents`: the rows grouped by the non-aggregate fields, the groups ranked
 * by `sort` (an aggregate over the group's rows, or a group-by value; nulls last) and the first
 * `limit` kept, in rank order. `other` holds every row of the groups left out.
 */
export function topGroups(
  top: { groupBy: DiscoverField[]; sort: { field: DiscoverField; desc: boolean }; limit: number },
  rows: DiscoverRow[],
  windowMs: number,
): { groups: TopGroup[]; other: DiscoverRow[] } {
  const byKey = new Map<string, { values: Value[]; rows: DiscoverRow[] }>();
  for (const r of rows) {
    const values = top.groupBy.map((f) => fieldValue(r, f));
    const id = JSON.stringify(values);
    const g = byKey.get(id);
    if (g) g.rows.push(r);
    else byKey.set(id, { values, rows: [r] });
  }
  const { field, desc } = top.sort;
  const rank = (g: { values: Value[]; rows: DiscoverRow[] }): Value =>
    field.kind === "aggregate" ? aggregate(field, g.rows, windowMs) : g.rows[0] ? fieldValue(g.rows[0], field) : null;
  const ranked = [...byKey.values()]
    .map((g) => ({ g, v: rank(g) }))
    .sort((a, b) => {
      const c = compare(a.v, b.v);
      return a.v === null || b.v === null ? c : desc ? -c : c;
    });
  const kept = ranked.slice(0, top.limit);
  const groups = kept.map(({ g }) => {
    const key = g.values.map((v) => (v === null ? "None" : String(v))).join(",");
    // Sentry renames a group that would collide with the Other series.
    return { key: key === OTHER_KEY ? `${key} (${top.groupBy.map((f) => f.name).join(",")})` : key, rows: g.rows };
  });
  return { groups, other: ranked.slice(top.limit).flatMap(({ g }) => g.rows) };
}
