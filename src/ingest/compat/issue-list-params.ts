/**
 * Sentry's issue-list parameters (`GET /organizations/{org}/issues/`, `/projects/{org}/{p}/issues/`)
 * as its clients send them, reduced to Errata's list query:
 *
 * - `project` repeatable numeric ids; `-1` (or none) means every project the caller may see;
 * - `environment` repeatable (OR'ed);
 * - `statsPeriod` (`24h`, `14d`, `90m`, `2w`) or `start`/`end` (ISO): issues seen in that window;
 * - `sort`: date, new, freq, user (Sentry's priority, trends and inbox sort by last seen here);
 * - `query`: the search language; `issue.category:error` is every issue Errata groups (errors and
 *   default-level messages), any other category matches none; a bare event id or short id is a lookup;
 * - `groupStatsPeriod`: which `stats` series to attach (`24h`, `14d`, `auto`/absent both, `""` none);
 *   the project-level list's `statsPeriod` means that series (not a window), as in Sentry;
 * - `limit` (1–100), `cursor`.
 *
 * Pure: throws AppError validation_failed naming the parameter, no I/O.
 */
import { AppError } from "../../core/errors";

export type StatsSeries = "24h" | "14d";

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
  stats: StatsSeries[];
  /** false when `issue.category:` names only categories Errata does not keep as issues */
  categoryMatches: boolean;
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
const ERROR_CATEGORIES = new Set(["error", "errors"]);

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

/** Strips `issue.category:…` terms, telling whether any category they name is kept as issues. */
function categoryTerms(query: string): { rest: string; matches: boolean } {
  let matches = true;
  const rest = query.replace(/(^|\s)(!?)issue\.category:(\[[^\]]*\]|"[^"]*"|\S+)/g, (_all, lead: string, neg: string, value: string) => {
    const names = value
      .replace(/^[["]|[\]"]$/g, "")
      .split(",")
      .map((s) => s.trim().toLowerCase());
    const hit = names.some((n) => ERROR_CATEGORIES.has(n));
    if (neg ? hit : !hit) matches = false;
    return lead;
  });
  return { rest: rest.trim(), matches };
}

function statsSeries(url: URLSearchParams, field: string): StatsSeries[] {
  const v = url.get(field);
  // Both series unless one is asked for: Backstage reads stats["24h"] and stats["14d"] without asking.
  if (v === null || v === "auto" || v === "24h" || v === "14d") return ["24h", "14d"];
  if (v === "") return [];
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
  return {
    query: category.rest,
    projectIds: ids.length === 0 || ids.includes(-1) ? null : ids,
    environments: url.getAll("environment").filter((e) => e !== ""),
    range: level === "org" ? timeWindow(url, now) : null,
    sort,
    limit: Math.min(limit, 100),
    cursor: url.get("cursor") || null,
    stats: statsSeries(url, level === "org" ? "groupStatsPeriod" : "statsPeriod"),
    categoryMatches: category.matches,
    shortIdLookup: ["1", "true"].includes(url.get("shortIdLookup") ?? ""),
  };
}
