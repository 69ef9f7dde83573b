/**
 * The replay search: the issue search's language (core/search/parse-query.ts: `key:value`,
 * `!key:value`, quoted values, `[a,b]` lists, `*` wildcards, positioned errors) over Sentry's
 * replay fields, and Sentry's replay sorts. Pure: compiles to typed filters the storage query
 * understands (storage/replays/replay-search.ts).
 *
 *   user:…  user.id  user.email  user.username  user.ip  user.name   release  environment  dist
 *   url:*checkout*  browser.name  os.name  device.*  sdk.name  platform  replay_type  id:[…]
 *   duration:>30s (s, m, h, ms; seconds when bare)  count_errors:>0  count_dead_clicks:>=1
 *   count_rage_clicks  count_urls  count_segments  activity  error_id:<event id>  trace:<trace id>
 *   any other key: a tag of the replay (`tags[key]:value` works too); free text: id, URL or user.
 */
import { AppError } from "../errors";
import { parseQuery, type QueryTerm } from "../search/parse-query";

/** Text columns of the replays table, by the names Sentry's replay search uses. */
export const TEXT_FIELDS = {
  "user.id": "user_id",
  "user.email": "user_email",
  "user.username": "user_username",
  "user.ip": "user_ip",
  "user.ip_address": "user_ip",
  "user.name": "user_name",
  "user.display_name": "user_name",
  release: "release",
  releases: "release",
  environment: "environment",
  dist: "dist",
  platform: "platform",
  replay_type: "replay_type",
  "browser.name": "browser_name",
  "browser.version": "browser_version",
  "os.name": "os_name",
  "os.version": "os_version",
  "device.name": "device_name",
  "device.brand": "device_brand",
  "device.family": "device_family",
  "device.model": "device_model",
  "sdk.name": "sdk_name",
  "sdk.version": "sdk_version",
  id: "replay_id",
  replay_id: "replay_id",
} as const;
export type TextColumn = (typeof TEXT_FIELDS)[keyof typeof TEXT_FIELDS];

export const NUMBER_FIELDS = {
  duration: "duration",
  count_errors: "count_errors",
  count_dead_clicks: "count_dead_clicks",
  count_rage_clicks: "count_rage_clicks",
  count_urls: "count_urls",
  count_segments: "count_segments",
  count_clicks: "count_clicks",
  activity: "activity",
} as const;
export type NumberColumn = (typeof NUMBER_FIELDS)[keyof typeof NUMBER_FIELDS];

export type CompareOp = "gt" | "gte" | "lt" | "lte" | "eq";

export type ReplayFilter =
  /** exact values (or `*` patterns) of one column; `user` spans id, email, username and name */
  | { kind: "text"; columns: TextColumn[]; values: string[]; negated: boolean }
  /** duration in ms, counts as numbers */
  | { kind: "number"; column: NumberColumn; op: CompareOp; value: number; negated: boolean }
  /** a visited URL (substring unless the value has `*`) */
  | { kind: "url"; values: string[]; negated: boolean }
  | { kind: "error"; eventIds: string[]; negated: boolean }
  | { kind: "trace"; traceIds: string[]; negated: boolean }
  | { kind: "tag"; key: string; values: string[]; negated: boolean }
  /** free text: replay id prefix, a URL, the user */
  | { kind: "free"; text: string };

export interface ReplaySearch {
  filters: ReplayFilter[];
}

const USER_COLUMNS: TextColumn[] = ["user_id", "user_email", "user_username", "user_name"];
const HEX = /^[0-9a-f]{32}$/;

function queryError(message: string, position: number): AppError {
  return new AppError("invalid_query", `${message} (at character ${position + 1}).`, { position });
}

function valuesOf(t: QueryTerm): string[] {
  return t.values ?? [t.value];
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** `>5`, `>=2`, `<10s`, `3` → op and number; durations to ms (bare numbers are seconds). */
function comparison(t: QueryTerm, duration: boolean): { op: CompareOp; value: number } {
  const m = /^(>=|<=|>|<|=)?\s*(-?\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(t.value.trim());
  const unit = (m?.[3] ?? "").toLowerCase();
  if (!m || (unit !== "" && !(duration && unit in DURATION_UNITS)))
    throw queryError(`"${t.key}:" needs a number${duration ? " or a duration like 30s, 5m" : ""}, optionally after > >= < <=`, t.position);
  const ops: Record<string, CompareOp> = { ">": "gt", ">=": "gte", "<": "lt", "<=": "lte", "=": "eq", "": "eq" };
  const n = Number(m[2]);
  return { op: ops[m[1] ?? ""] as CompareOp, value: duration ? Math.round(n * (DURATION_UNITS[unit || "s"] as number)) : n };
}

function ids(t: QueryTerm, what: string): string[] {
  const out = valuesOf(t).map((v) => v.replace(/-/g, "").toLowerCase());
  for (const id of out) if (!HEX.test(id)) throw queryError(`"${t.key}:" needs ${what} (32 hex characters)`, t.position);
  return out;
}

function filterOf(t: QueryTerm): ReplayFilter {
  const key = t.key.toLowerCase();
  const negated = t.negated;
  if (key === "user") return { kind: "text", columns: USER_COLUMNS, values: valuesOf(t), negated };
  if (key in TEXT_FIELDS) {
    const column = TEXT_FIELDS[key as keyof typeof TEXT_FIELDS];
    const values = column === "replay_id" ? valuesOf(t).map((v) => v.replace(/-/g, "").toLowerCase()) : valuesOf(t);
    return { kind: "text", columns: [column], values, negated };
  }
  if (key in NUMBER_FIELDS) {
    if (t.values) throw queryError(`"${t.key}:" takes one comparison, not a list`, t.position);
    const column = NUMBER_FIELDS[key as keyof typeof NUMBER_FIELDS];
    return { kind: "number", column, ...comparison(t, column === "duration"), negated };
  }
  if (key === "url" || key === "urls") return { kind: "url", values: valuesOf(t), negated };
  if (key === "error_id" || key === "error_ids" || key === "error") return { kind: "error", eventIds: ids(t, "an event id"), negated };
  if (key === "trace" || key === "trace_id" || key === "trace_ids") return { kind: "trace", traceIds: ids(t, "a trace id"), negated };
  const tag = /^tags\[(.+)\]$/.exec(t.key)?.[1] ?? t.key;
  return { kind: "tag", key: tag, values: valuesOf(t), negated };
}

/** Parses and compiles a replay search; `invalid_query` with the position of the bad term. */
export function parseReplaySearch(input: string): ReplaySearch {
  // `tags[key]:value` is Sentry's spelling of a tag term; the parser wants a plain key.
  const parsed = parseQuery(
    input.replace(/(^|\s)(!?)tags\[([^\]\s]+)\]:/g, (_m, lead: string, neg: string, key: string) => `${lead}${neg}${key}:`),
  );
  const filters: ReplayFilter[] = parsed.terms.map(filterOf);
  for (const text of parsed.text) filters.push({ kind: "free", text });
  return { filters };
}

/** Sentry's replay sorts (the MCP server validates against this list) → a column or expression name. */
export const REPLAY_SORTS = {
  started_at: "started_at",
  finished_at: "finished_at",
  duration: "duration",
  count_errors: "count_errors",
  count_dead_clicks: "count_dead_clicks",
  count_rage_clicks: "count_rage_clicks",
  count_urls: "count_urls",
  count_segments: "count_segments",
  activity: "activity",
  "browser.name": "browser_name",
  "browser.version": "browser_version",
  "os.name": "os_name",
  "os.version": "os_version",
  "device.name": "device_name",
  "device.brand": "device_brand",
  "device.family": "device_family",
  "device.model": "device_model",
  dist: "dist",
  platform: "platform",
  project_id: "project_id",
  "sdk.name": "sdk_name",
  "user.email": "user_email",
  "user.id": "user_id",
  "user.username": "user_username",
  // Errata keeps no warning or info ids: these sort as the default.
  count_warnings: "started_at",
  count_infos: "started_at",
} as const;
export type ReplaySortColumn = (typeof REPLAY_SORTS)[keyof typeof REPLAY_SORTS];

export interface ReplaySort {
  column: ReplaySortColumn;
  desc: boolean;
}

/** `-started_at` (the default), `count_errors`, … ; `validation_failed` on an unknown one. */
export function parseReplaySort(value: string | null | undefined): ReplaySort {
  const v = (value ?? "").trim() || "-started_at";
  const desc = v.startsWith("-");
  const name = desc ? v.slice(1) : v;
  const column = REPLAY_SORTS[name as keyof typeof REPLAY_SORTS];
  if (!column)
    throw AppError.field("sort", "enum", `sort: "${v.slice(0, 40)}" is not a replay sort (e.g. -started_at, -count_errors, -duration)`);
  return { column, desc };
}
