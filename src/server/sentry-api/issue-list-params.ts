/**
 * Sentry's issue-list parameters (`GET /organizations/{org}/issues/`, `/projects/{org}/{p}/issues/`)
 * as its clients send them, reduced to Errata's list query:
 *
 * - `project` repeatable numeric ids; `-1` (or none) means every project the caller may see;
 * - `environment` repeatable (OR'ed);
 * - `statsPeriod` (`24h`, `14d`, `90m`, `2w`) or `start`/`end` (ISO): issues seen in that window;
 * - `sort`: date, new, freq, user (Sentry's priority, trends and inbox sort by last seen here);
 * - `query`: the search language; `issue.category:error` is every issue but cron and uptime failures
 *   (`cron`, `uptime` those), `feedback` the user feedback (not stored as issues), any other category
 *   matches none; a bare event id or short id is a lookup;
 * - `groupStatsPeriod`: the one `stats` series to attach, as Sentry does: `24h` (also when absent),
 *   `14d`, `auto` (keyed "auto": hourly buckets for a window of two days or less, daily beyond),
 *   `""` none; the project-level list's `statsPeriod` means that series (not a window), as in Sentry.
 *   One series, not both: Backstage reads `"14d" in stats ? stats["14d"] : stats["24h"]`;
 * - `limit` (1–100), `cursor`.
 *
 * Pure: throws AppError validation_failed naming the parameter, no I/O.
 */
import { AppError } from "../../core/errors";

export type StatsSeries = "24h" | "14d";
/** Which series to attach to each listed issue, and the key Sentry names it by. */
export interface StatsRequest {
  key: StatsSeries | "auto";
  series: StatsSeries;
}

export interface SentryIssueListParams {
  query: string;
  /** numeric project ids; null: every visible project */
  projectIds: number[] | null;
  environments: string[];
  /** epoch ms window the issues must have been seen in */
  range: { start: number; end: number } | null;
  sort: "date" | "new" | "freq" | "user";
  limit: number;
  cursor: string | null;
  stats: StatsRequest | null;
  /** false when `issue.category:` names only categories Errata does not keep as issues */
  categoryMatches: boolean;
  /** `issue.category:feedback`: the list is user feedback, shaped as Sentry's feedback issues */
  feedback: boolean;
  shortIdLookup: boolean;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
const SORTS: Record<string, SentryIssueListParams["sort"]> = {
  date: "date",
  new: "new",
  freq: "freq",
  user: "user",
  priority: "date",
  trends: "date",
  inbox: "date",
};

function bad(field: string, message: string): AppError {
  return AppError.field(field, "format", `${field}: ${message}`);
}

/** `24h`, `14d`, `30m`, `2w` → milliseconds. */
export function statsPeriodMs(value: string, field = "statsPeriod"): number {
  const m = /^(\d{1,6})([smhdw])?$/.exec(value.trim());
  if (!m) throw bad(field, `"${value.slice(0, 40)}" is not a period like 24h or 14d`);
  return Number(m[1]) * (UNITS[m[2] ?? "s"] as number);
}

function timeParam(url: URLSearchParams, field: string): number | null {
  const v = url.get(field);
  if (!v) return null;
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
  if (Number.isNaN(t)) throw bad(field, `"${v.slice(0, 40)}" is not an ISO date`);
  return t;
}

/** The window of `statsPeriod` or `start`/`end` (null when neither is given). */
export function timeWindow(url: URLSearchParams, now: number): { start: number; end: number } | null {
  const period = url.get("statsPeriod");
  if (period) return { start: now - statsPeriodMs(period), end: now };
  const start = timeParam(url, "start");
  const end = timeParam(url, "end");
  if (start === null && end === null) return null;
  if (start === null || end === null) throw bad(start === null ? "start" : "end", "start and end go together");
  return { start, end };
}

/** Errata's issue kinds by Sentry category: errors are every issue not a cron or uptime failure. */
const KIND_TYPES = { cron: "monitor_check_in_failure", uptime: "uptime_domain_failure" } as const;
type Kind = "error" | keyof typeof KIND_TYPES;
const KINDS: readonly Kind[] = ["error", "cron", "uptime"];
const CATEGORY_KINDS: Record<string, Kind> = {
  error: "error",
  errors: "error",
  cron: "cron",
  crons: "cron",
  monitor: "cron",
  uptime: "uptime",
};
const FEEDBACK_CATEGORIES = new Set(["feedback", "user_feedback"]);

/** The kinds as a search term over `issue.type` ("" when every kind). */
function kindsTerm(kinds: Set<Kind>): string {
  if (kinds.size === KINDS.length) return "";
  if (kinds.has("error")) {
    const others = (["cron", "uptime"] as const).filter((k) => !kinds.has(k)).map((k) => KIND_TYPES[k]);
    return `!issue.type:[${others.join(",")}]`;
  }
  return `issue.type:[${[...kinds].map((k) => KIND_TYPES[k as keyof typeof KIND_TYPES]).join(",")}]`;
}

/**
 * Rewrites `issue.category:…` terms into `issue.type` conditions, telling whether any category
 * named is kept as issues, and whether the query asks for user feedback alone (not stored as issues).
 */
function categoryTerms(query: string): { rest: string; matches: boolean; feedback: boolean } {
  let matches = true;
  let feedback = false;
  const rest = query.replace(/(^|\s)(!?)issue\.category:(\[[^\]]*\]|"[^"]*"|\S+)/g, (_all, lead: string, neg: string, value: string) => {
    const names = value
      .replace(/^[["]|[\]"]$/g, "")
      .split(",")
      .map((s) => s.trim().toLowerCase());
    const named = new Set(names.map((n) => CATEGORY_KINDS[n]).filter((k): k is Kind => k !== undefined));
    const kinds = new Set(KINDS.filter((k) => named.has(k) !== Boolean(neg)));
    if (!neg && names.some((n) => FEEDBACK_CATEGORIES.has(n)) && named.size === 0) feedback = true;
    if (kinds.size === 0) matches = false;
    const term = kindsTerm(kinds);
    return term ? `${lead}${term}` : lead;
  });
  return { rest: rest.trim(), matches, feedback };
}

function statsSeries(url: URLSearchParams, field: string, range: { start: number; end: number } | null): StatsRequest | null {
  const v = url.get(field);
  if (v === "") return null;
  if (v === null || v === "24h") return { key: "24h", series: "24h" };
  if (v === "14d") return { key: "14d", series: "14d" };
  if (v === "auto") return { key: "auto", series: range && range.end - range.start <= 2 * 86_400_000 ? "24h" : "14d" };
  throw bad(field, 'use "24h", "14d", "auto" or ""');
}

/** `level`: the org-level list (`statsPeriod` a window) or the project-level one (`statsPeriod` the stats series). */
export function sentryIssueListParams(
  url: URLSearchParams,
  now: number,
  defaultQuery: string,
  level: "org" | "project" = "org",
): SentryIssueListParams {
  const projects = url.getAll("project").flatMap((v) => v.split(","));
  const ids = projects.map((v) => {
    if (!/^-?\d{1,15}$/.test(v.trim())) throw bad("project", `"${v.slice(0, 40)}" is not a project id`);
    return Number(v);
  });
  const sortName = url.get("sort") || "date";
  const sort = SORTS[sortName];
  if (!sort) throw bad("sort", `unknown sort "${sortName.slice(0, 40)}": use date, new, freq or user`);
  const limitRaw = url.get("limit") ?? url.get("per_page");
  const limit = limitRaw === null ? 100 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1) throw bad("limit", "a positive integer");
  const category = categoryTerms(url.get("query") ?? defaultQuery);
  const range = level === "org" ? timeWindow(url, now) : null;
  return {
    query: category.rest,
    projectIds: ids.length === 0 || ids.includes(-1) ? null : ids,
    environments: url.getAll("environment").filter((e) => e !== ""),
    range,
    sort,
    limit: Math.min(limit, 100),
    cursor: url.get("cursor") || null,
    stats: statsSeries(url, level === "org" ? "groupStatsPeriod" : "statsPeriod", range),
    categoryMatches: category.matches,
    feedback: category.feedback,
    shortIdLookup: ["1", "true"].includes(url.get("shortIdLookup") ?? ""),
  };
}
