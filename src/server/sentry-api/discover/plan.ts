/**
 * Sentry's query API (`GET /organizations/{org}/events/` and `…/events-stats/`) as its clients send
 * it, reduced to a plan Errata can run over what it keeps: `dataset` (errors — also `discover` and
 * `events` —, spans — also `spansIndexed` —, logs — also `ourlogs` —, tracemetrics — also
 * `metrics`, the samples `Sentry.metrics` sends), `field=` columns and
 * aggregates, `query=` in the search language, `sort=`, `per_page`, `cursor` (Sentry's
 * `0:<offset>:0`), `statsPeriod` or `start`/`end` (bounded to 90 days). `issuePlatform` holds the
 * occurrences of issues that are not errors: in Errata, user feedback.
 *
 * Pure: throws AppError validation_failed naming the parameter (Sentry answers 400 with a detail).
 * The rows themselves are read by storage/events/discover.ts and evaluated by evaluate.ts.
 */
import { AppError } from "../../../core/errors";
import { parseQuery, type QueryTerm } from "../../../core/search/parse-query";
import { statsPeriodMs } from "../issue-list-params";

export type Dataset = "errors" | "spans" | "logs" | "issuePlatform" | "tracemetrics";
export type FieldType = "string" | "integer" | "number" | "date" | "duration" | "boolean" | "percentage";

const DATASETS: Record<string, Dataset> = {
  errors: "errors",
  discover: "errors",
  events: "errors",
  error: "errors",
  spans: "spans",
  spansindexed: "spans",
  logs: "logs",
  ourlogs: "logs",
  tracemetrics: "tracemetrics",
  metrics: "tracemetrics",
  // Occurrences of issues that are not errors: here, user feedback.
  issueplatform: "issuePlatform",
  search_issues: "issuePlatform",
};

/** A dataset's own columns: name → type (aliases map to a canonical name). Anything else is a tag/attribute. */
export const COLUMNS: Record<Dataset, Record<string, FieldType>> = {
  errors: {
    id: "string",
    title: "string",
    message: "string",
    project: "string",
    "project.name": "string",
    "project.id": "integer",
    timestamp: "date",
    level: "string",
    environment: "string",
    release: "string",
    culprit: "string",
    platform: "string",
    transaction: "string",
    issue: "string",
    "issue.id": "integer",
    trace: "string",
    "event.type": "string",
    user: "string",
    "user.email": "string",
    "user.display": "string",
    "user.id": "string",
    "user.username": "string",
    "user.ip": "string",
    "error.type": "string",
    "error.value": "string",
    "error.handled": "boolean",
  },
  spans: {
    id: "string",
    span_id: "string",
    "span.id": "string",
    trace: "string",
    parent_span: "string",
    transaction: "string",
    "span.op": "string",
    "span.description": "string",
    "span.status": "string",
    "span.duration": "duration",
    "span.self_time": "duration",
    is_transaction: "boolean",
    timestamp: "date",
    "precise.start_ts": "number",
    "precise.finish_ts": "number",
    project: "string",
    "project.name": "string",
    "project.id": "integer",
  },
  logs: {
    id: "string",
    "sentry.item_id": "string",
    message: "string",
    "log.body": "string",
    severity: "string",
    "log.level": "string",
    severity_number: "integer",
    "sentry.severity_number": "integer",
    trace: "string",
    span_id: "string",
    timestamp: "date",
    timestamp_precise: "integer",
    observed_timestamp: "date",
    project: "string",
    "project.name": "string",
    "project.id": "integer",
  },
  tracemetrics: {
    id: "string",
    "metric.name": "string",
    "metric.type": "string",
    "metric.unit": "string",
    value: "number",
    trace: "string",
    span_id: "string",
    timestamp: "date",
    timestamp_precise: "integer",
    observed_timestamp: "date",
    project: "string",
    "project.name": "string",
    "project.id": "integer",
  },
  issuePlatform: {
    id: "string",
    title: "string",
    message: "string",
    timestamp: "date",
    "issue.category": "string",
    "issue.type": "string",
    "user.email": "string",
    "user.name": "string",
    "user.display": "string",
    url: "string",
    project: "string",
    "project.name": "string",
    "project.id": "integer",
  },
};

/** Aliases → the canonical column evaluated (the response keeps the name asked for). */
export const COLUMN_ALIASES: Record<string, string> = {
  "project.name": "project",
  span_id: "id",
  "span.id": "id",
  "sentry.item_id": "id",
  "log.body": "message",
  "log.level": "severity",
  "sentry.severity_number": "severity_number",
  "span.self_time": "span.duration",
};

export type AggregateFn =
  | "count"
  | "count_unique"
  | "last_seen"
  | "first_seen"
  | "min"
  | "max"
  | "avg"
  | "sum"
  | "p50"
  | "p75"
  | "p90"
  | "p95"
  | "p99"
  | "epm"
  | "eps"
  | "failure_rate"
  | "per_minute"
  | "per_second";

const NUMERIC_FNS = new Set<AggregateFn>(["min", "max", "avg", "sum", "p50", "p75", "p90", "p95", "p99"]);

export type DiscoverField =
  | { kind: "column"; name: string; column: string; type: FieldType }
  /** a tag (errors) or attribute (spans, logs): `tags[key]` or a bare key */
  | { kind: "tag"; name: string; key: string; type: "string" }
  | {
      kind: "aggregate";
      name: string;
      fn: AggregateFn;
      arg: DiscoverField | null;
      type: FieldType;
      /** tracemetrics: `fn(value,<name>,<type>,<unit>)` aggregates that one metric's samples only */
      metric?: TraceMetricRef;
    };

/** One metric of the tracemetrics dataset; `unit` null for Sentry's `-` (none given). */
export interface TraceMetricRef {
  name: string;
  type: string;
  unit: string | null;
}

export type FilterOp = "eq" | "gt" | "gte" | "lt" | "lte";

export interface DiscoverFilter {
  field: DiscoverField;
  /** OR'ed; `*` wildcards for eq */
  values: string[];
  op: FilterOp;
  negated: boolean;
}

export interface DiscoverPlan {
  dataset: Dataset;
  /** in the order asked (duplicates dropped) */
  fields: DiscoverField[];
  /** non-aggregate fields: the group-by key when any aggregate is asked */
  groupBy: DiscoverField[];
  aggregated: boolean;
  filters: DiscoverFilter[];
  /** free-text words: each must appear in the title/message (or span description) */
  text: string[];
  /** the order of the page (rows: newest first by default; aggregates: by the first aggregate) */
  sort: { field: DiscoverField; desc: boolean } | null;
  range: { start: number; end: number };
  limit: number;
  offset: number;
}

const DAY = 86_400_000;
export const MAX_RANGE = 90 * DAY;
export const MAX_PER_PAGE = 100;
const MAX_FIELD_LENGTH = 200;
/** `field=` (and `yAxis=`) values of one request: each is a column evaluated on every row. */
const MAX_FIELDS = 30;

function bad(field: string, message: string): AppError {
  return AppError.field(field, "format", message);
}

export function datasetOf(value: string | null): Dataset {
  if (value === null || value === "") return "errors";
  const d = DATASETS[value.toLowerCase()];
  if (!d) throw bad("dataset", `Unsupported dataset "${value.slice(0, 40)}": use errors, spans, logs, tracemetrics or issuePlatform.`);
  return d;
}

const TAG_KEY = /^[A-Za-z0-9_.:@/-]{1,64}$/;

/** A column or tag name (no function). */
function columnField(dataset: Dataset, name: string, param: string): DiscoverField {
  const trimmed = name.trim();
  const tag = /^tags\[([^\]]{1,64})\]$/.exec(trimmed);
  if (tag) return { kind: "tag", name: trimmed, key: tag[1] as string, type: "string" };
  const type = COLUMNS[dataset][trimmed];
  if (type) return { kind: "column", name: trimmed, column: COLUMN_ALIASES[trimmed] ?? trimmed, type };
  if (!TAG_KEY.test(trimmed)) throw bad(param, `Invalid field "${trimmed.slice(0, 60)}" for the ${dataset} dataset.`);
  return { kind: "tag", name: trimmed, key: trimmed, type: "string" };
}

/** One `field=` value: `count()`, `count_unique(user)`, `avg(span.duration)`, a column or a tag. */
export function parseField(dataset: Dataset, raw: string, param = "field"): DiscoverField {
  const name = raw.trim();
  // Bounded like the query (issue 39): no column or function of any dataset is this long.
  if (name.length > MAX_FIELD_LENGTH) throw bad(param, `Invalid field "${name.slice(0, 60)}…": at most ${MAX_FIELD_LENGTH} characters.`);
  const call = /^([a-z_0-9]+)\((.*)\)$/.exec(name);
  if (!call) return columnField(dataset, name, param);
  const fn = call[1] as string;
  const argText = (call[2] as string).trim();
  const unknown = () => bad(param, `Invalid field "${name.slice(0, 60)}": ${fn}() is not a function Errata answers.`);
  if (dataset === "tracemetrics") return metricAggregate(name, fn, argText, param, unknown);
  switch (fn) {
    case "epm":
    case "eps":
      return { kind: "aggregate", name, fn, arg: null, type: "number" };
    case "failure_rate":
      if (dataset !== "spans") throw unknown();
      return { kind: "aggregate", name, fn, arg: null, type: "percentage" };
    case "count_sample":
    case "count":
      // count(id), count(span.duration): Sentry counts rows either way (count_sample: no extrapolation here).
      if (argText !== "") columnField(dataset, argText, param);
      return { kind: "aggregate", name, fn: "count", arg: null, type: "integer" };
    case "count_unique": {
      if (argText === "") throw bad(param, `Invalid field "${name}": count_unique needs a column.`);
      return { kind: "aggregate", name, fn: "count_unique", arg: columnField(dataset, argText, param), type: "integer" };
    }
    case "last_seen":
    case "first_seen":
      if (dataset !== "errors") throw unknown();
      return { kind: "aggregate", name, fn, arg: null, type: "date" };
    default: {
      if (!NUMERIC_FNS.has(fn as AggregateFn)) throw unknown();
      const arg = columnField(dataset, argText || (dataset === "spans" ? "span.duration" : "timestamp"), param);
      const numeric = arg.kind === "column" && ["integer", "number", "duration", "date"].includes(arg.type);
      if (!numeric) throw bad(param, `Invalid field "${name.slice(0, 60)}": ${fn}() needs a numeric column.`);
      const type: FieldType =
        arg.type === "date"
          ? "date"
          : arg.type === "duration"
            ? "duration"
            : fn === "min" || fn === "max" || fn === "sum"
              ? arg.type
              : "number";
      return { kind: "aggregate", name, fn: fn as AggregateFn, arg, type };
    }
  }
}

const METRIC_FNS = new Set(["count", "sum", "avg", "min", "max", "p50", "p75", "p90", "p95", "p99", "per_minute", "per_second"]);

/**
 * A tracemetrics aggregate: `count()`, `fn(value)` over every sample, or Sentry's
 * `fn(value,<metric name>,<counter|gauge|distribution>,<unit or ->)` over one metric's samples.
 */
function metricAggregate(name: string, fn: string, argText: string, param: string, unknown: () => AppError): DiscoverField {
  if (!METRIC_FNS.has(fn)) throw unknown();
  const args = argText === "" ? [] : argText.split(",").map((a) => a.trim());
  if (args.length > 0 && args[0] !== "value") throw bad(param, `Invalid field "${name.slice(0, 60)}": metrics aggregate value.`);
  let metric: TraceMetricRef | undefined;
  if (args.length > 1) {
    const [, metricName, type, unit] = args;
    if (!metricName || !type || !["counter", "gauge", "distribution"].includes(type))
      throw bad(param, `Invalid field "${name.slice(0, 60)}": use ${fn}(value,<metric name>,<counter|gauge|distribution>,<unit or ->).`);
    metric = { name: metricName, type, unit: !unit || unit === "-" || unit === "none" ? null : unit };
  }
  const arg: DiscoverField = { kind: "column", name: "value", column: "value", type: "number" };
  if (fn === "count") return { kind: "aggregate", name, fn: "count", arg: null, type: "integer", metric };
  return { kind: "aggregate", name, fn: fn as AggregateFn, arg, type: "number", metric };
}

/** `0:200:0` (Sentry) or a plain offset → the row offset. */
function offsetOf(cursor: string | null): number {
  if (!cursor) return 0;
  const m = /^(?:\d+:)?(\d{1,7})(?::[01])?$/.exec(cursor.trim());
  if (!m) throw bad("cursor", `Invalid cursor "${cursor.slice(0, 40)}".`);
  return Number(m[1]);
}

function instant(v: string, field: string): number {
  const t = /^\d{9,11}(\.\d+)?$/.test(v) ? Number(v) * 1000 : Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
  if (!Number.isFinite(t)) throw bad(field, `${field}: "${v.slice(0, 40)}" is not an ISO date.`);
  return t;
}

/** `statsPeriod` (default 14d, Sentry's), or `start`+`end`; never wider than 90 days. */
export function discoverRange(q: URLSearchParams, now: number, fallback = 14 * DAY): { start: number; end: number } {
  const startText = q.get("start");
  const endText = q.get("end");
  if (startText || endText) {
    if (!startText || !endText) throw bad(startText ? "end" : "start", "start and end go together.");
    const start = instant(startText, "start");
    const end = instant(endText, "end");
    if (start >= end) throw bad("start", "start must be before end.");
    return { start: Math.max(start, end - MAX_RANGE), end };
  }
  const period = q.get("statsPeriod");
  const span = period ? statsPeriodMs(period) : fallback;
  return { start: now - Math.min(span, MAX_RANGE), end: now };
}

const OPS: Record<string, FilterOp> = { ">": "gt", ">=": "gte", "<": "lt", "<=": "lte", "": "eq", "=": "eq" };
/** Query keys that are about the issue stream or the category, not a column: accepted and handled elsewhere. */
const SKIPPED_KEYS = new Set(["event.type", "issue.category", "is"]);

function filterOf(dataset: Dataset, t: QueryTerm): DiscoverFilter | null {
  const key = t.key === "env" ? "environment" : t.key === "has" ? t.value : t.key;
  if (t.key === "event.type" && dataset === "errors") {
    // event.type:error / default are the errors dataset; transaction is not kept here.
    const values = (t.values ?? [t.value]).map((v) => v.toLowerCase());
    const field: DiscoverField = { kind: "column", name: "event.type", column: "event.type", type: "string" };
    return { field, values, op: "eq", negated: t.negated };
  }
  if (SKIPPED_KEYS.has(t.key)) return null;
  const field = columnField(dataset, key, "query");
  // Short ids are matched in any case, as the issue routes take them.
  if (field.kind === "column" && field.column === "issue" && dataset === "errors") {
    return { field, values: (t.values ?? [t.value]).map((v) => v.toUpperCase()), op: "eq", negated: t.negated };
  }
  if (t.key === "has") return { field, values: ["*"], op: "eq", negated: t.negated };
  const values = t.values ?? [t.value];
  const cmp = /^(>=|<=|>|<|=)(.+)$/.exec(t.value);
  const comparable = field.kind === "column" && field.type !== "string" && field.type !== "boolean";
  if (cmp && comparable && !t.values)
    return { field, values: [cmp[2] as string], op: OPS[cmp[1] as string] as FilterOp, negated: t.negated };
  return { field, values, op: "eq", negated: t.negated };
}

/** Sentry's alias of a function column: every non-word character becomes `_`, outer ones dropped. */
function functionAlias(name: string): string {
  return name.replace(/\W/g, "_").replace(/^_+|_+$/g, "");
}

function sortOf(dataset: Dataset, raw: string | null, fields: DiscoverField[], aggregated: boolean): DiscoverPlan["sort"] {
  if (!raw) {
    const ts = fields.find((f) => f.kind === "column" && f.column === "timestamp");
    if (!aggregated) return { field: ts ?? (parseField(dataset, "timestamp") as DiscoverField), desc: true };
    const agg = fields.find((f) => f.kind === "aggregate");
    return agg ? { field: agg, desc: true } : null;
  }
  const desc = raw.startsWith("-");
  const name = raw.replace(/^-/, "").trim();
  // Sentry also orders by a function's alias (`-count` for `count()`, `count_unique_user`), as the MCP server sends it.
  const field = fields.find((f) => f.name === name || (f.kind === "aggregate" && functionAlias(f.name) === name));
  if (field) return { field, desc };
  // Sentry orders only by a selected field; timestamp is always available on the row lists.
  if (!aggregated && name === "timestamp") return { field: parseField(dataset, name, "sort"), desc };
  throw bad("sort", `Cannot sort by "${name.slice(0, 60)}": it is not one of the selected fields.`);
}

/** The whole request (at least one `field=`, as Sentry requires). */
export function discoverPlan(q: URLSearchParams, now: number): DiscoverPlan {
  const dataset = datasetOf(q.get("dataset"));
  const names = [...new Set(q.getAll("field").filter((f) => f.trim() !== ""))];
  if (names.length === 0) throw bad("field", "No columns selected: add at least one field=.");
  if (names.length > MAX_FIELDS) throw bad("field", `At most ${MAX_FIELDS} fields.`);
  const fields = names.map((n) => parseField(dataset, n));
  const aggregated = fields.some((f) => f.kind === "aggregate");
  const parsed = parseQuery(q.get("query") ?? "");
  const filters = parsed.terms.map((t) => filterOf(dataset, t)).filter((f): f is DiscoverFilter => f !== null);
  const perPage = q.get("per_page") ?? q.get("limit");
  const limit = perPage === null || perPage === "" ? 50 : Number(perPage);
  if (!Number.isInteger(limit) || limit < 1) throw bad("per_page", "per_page must be a positive integer.");
  return {
    dataset,
    fields,
    groupBy: fields.filter((f) => f.kind !== "aggregate"),
    aggregated,
    filters,
    text: parsed.text.map((w) => w.trim()).filter((w) => w !== ""),
    sort: sortOf(dataset, q.get("sort") ?? q.get("orderby"), fields, aggregated),
    range: discoverRange(q, now),
    limit: Math.min(limit, MAX_PER_PAGE),
    offset: offsetOf(q.get("cursor")),
  };
}

/** Sentry's `meta`: each field's type, and units (milliseconds for durations). */
export function discoverMeta(fields: DiscoverField[]): { fields: Record<string, string>; units: Record<string, string | null> } {
  const types: Record<string, string> = {};
  const units: Record<string, string | null> = {};
  for (const f of fields) {
    types[f.name] = f.type;
    units[f.name] = f.type === "duration" ? "millisecond" : null;
  }
  return { fields: types, units };
}

export interface StatsPlan {
  plan: DiscoverPlan;
  /** the aggregates to chart, one series each */
  axes: DiscoverField[];
  interval: number;
  /** `topEvents` with non-aggregate `field=`s: one series per group (Sentry's top events); null otherwise */
  top: TopEventsPlan | null;
}

export interface TopEventsPlan {
  /** the non-aggregate fields a group is keyed by, in the order asked */
  groupBy: DiscoverField[];
  /** how the groups are ranked (default: the first axis, descending) */
  sort: { field: DiscoverField; desc: boolean };
  limit: number;
  /** `excludeOther=0`: the rows outside the top groups as one more series, `Other` */
  other: boolean;
}

const INTERVALS = [60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000, 3_600_000, 4 * 3_600_000, 12 * 3_600_000, DAY];
/** Sentry's MAX_TOP_EVENTS. */
export const MAX_TOP_EVENTS = 10;

/**
 * `topEvents=N` with `field=` columns (Grafana's data source sends `topEvents=10` always, with the
 * axes and its group-by columns as fields): the groups to chart. Without a non-aggregate field
 * there is nothing to group by and the series is the plain one, as Sentry's charts ask it.
 */
function topEventsPlan(q: URLSearchParams, dataset: Dataset, axes: DiscoverField[]): TopEventsPlan | null {
  const raw = q.get("topEvents");
  if (raw === null || raw === "") return null;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 0) throw bad("topEvents", "topEvents must be a positive integer.");
  if (limit > MAX_TOP_EVENTS) throw bad("topEvents", `Can only get up to ${MAX_TOP_EVENTS} top events.`);
  const names = [...new Set(q.getAll("field").filter((f) => f.trim() !== ""))];
  if (names.length > MAX_FIELDS) throw bad("field", `At most ${MAX_FIELDS} fields.`);
  const fields = names.map((n) => parseField(dataset, n));
  const groupBy = fields.filter((f) => f.kind !== "aggregate");
  if (limit === 0 || groupBy.length === 0) return null;
  const sortText = q.get("sort") ?? q.get("orderby");
  const rankable = [...fields, ...axes];
  let sort = { field: axes[0] as DiscoverField, desc: true };
  if (sortText) {
    const name = sortText.replace(/^-/, "").trim();
    const field = rankable.find((f) => f.name === name || (f.kind === "aggregate" && functionAlias(f.name) === name));
    if (!field) throw bad("sort", `Cannot sort by "${name.slice(0, 60)}": it is not one of the selected fields.`);
    sort = { field, desc: sortText.startsWith("-") };
  }
  return { groupBy, sort, limit, other: q.get("excludeOther") === "0" };
}

/**
 * `events-stats`: `yAxis` (repeatable, default `count()`), `interval` (`1h`, `5m`, `30s`; buckets
 * are at least a minute, at most 1,000), `topEvents` with `field=` group-by columns.
 */
export function statsPlan(q: URLSearchParams, now: number): StatsPlan {
  const dataset = datasetOf(q.get("dataset"));
  const names = q.getAll("yAxis").filter((y) => y.trim() !== "");
  if (new Set(names).size > MAX_FIELDS) throw bad("yAxis", `At most ${MAX_FIELDS} axes.`);
  const axes = (names.length > 0 ? [...new Set(names)] : ["count()"]).map((n) => parseField(dataset, n, "yAxis"));
  const notAggregate = axes.find((a) => a.kind !== "aggregate");
  if (notAggregate) throw bad("yAxis", `yAxis "${notAggregate.name.slice(0, 60)}" must be a function such as count().`);
  const top = topEventsPlan(q, dataset, axes);
  const range = discoverRange(q, now, DAY);
  const intervalText = q.get("interval");
  const span = range.end - range.start;
  // Sentry's default: about 100 buckets of a round size.
  let interval = intervalText ? statsPeriodMs(intervalText, "interval") : (INTERVALS.find((i) => span / i <= 150) ?? DAY);
  if (interval <= 0) throw bad("interval", "Interval cannot result in a zero duration.");
  // Grafana asks seconds for short ranges (FormatSentryInterval); rows are bucketed by the minute at finest.
  interval = Math.max(interval, 60_000);
  if (span / interval > 1000) interval = Math.ceil(span / 1000 / 60_000) * 60_000;
  const parsed = parseQuery(q.get("query") ?? "");
  const filters = parsed.terms.map((t) => filterOf(dataset, t)).filter((f): f is DiscoverFilter => f !== null);
  const plan: DiscoverPlan = {
    dataset,
    fields: axes,
    groupBy: [],
    aggregated: true,
    filters,
    text: parsed.text.map((w) => w.trim()).filter((w) => w !== ""),
    sort: null,
    range,
    limit: 1,
    offset: 0,
  };
  return { plan, axes, interval, top };
}
