/**
 * The issue search language (SPEC §2), tokenised with positions so errors can point at the exact
 * spot. `key:value` and `!key:value` terms (values may be "quoted" or a `[list,of,values]`),
 * everything else is free text.
 *
 *   parseQuery(text)                 → terms + free text (syntax only)
 *   compileIssueSearch(parsed, now)  → typed conditions the stream's storage query understands
 *
 * Keys: is:, level:, environment:, release:, project:, assigned:, has:, digest:, user.email:
 * (and user.id/username/ip), firstSeen:/lastSeen: (`-24h` within, `+7d` older than, `>2024-05-01`),
 * timesSeen:/times_seen: (`>10`, `<=3`, `5`), and any other key is a tag (`browser:"Chrome 120"`,
 * `url:*checkout*`) the searched projects must have. Pure: `now` and the known tag keys are arguments.
 */
import { AppError } from "../errors";
import { parseDigest } from "../nextjs/digest";

export interface QueryTerm {
  key: string;
  value: string;
  negated: boolean;
  /** character offset of the term in the query */
  position: number;
  /** set when the value was a `[a,b]` list (then `value` is the first item) */
  values?: string[];
}

export interface ParsedQuery {
  terms: QueryTerm[];
  text: string[];
}

const TERM = /(!?)([A-Za-z_][\w.]*):("((?:[^"\\]|\\.)*)"?|\[[^\]]*\]?|[^\s"]*)/y;

/**
 * Bounds of one query (issue 39): a 12 KB query of 6,000 nested parentheses held the server for
 * 2.9 s. Checked while tokenising, before any term is compiled or any row read, and refused as
 * `invalid_query` at the position where the bound was crossed. Generous for people, who type or
 * save queries of tens to a few hundred characters; tight enough that no query costs much.
 */
export const QUERY_LIMITS = {
  /** characters */
  length: 4_000,
  /** `key:value` terms plus free-text words */
  terms: 50,
  /** values across every `[list]` of the query (each one a SQL parameter or a match per row) */
  values: 200,
  /** nesting of parentheses outside quotes (the language has no grouping yet; they are text to it) */
  depth: 10,
} as const;

/** Work counted by the tokenizer (characters it visited), so tests can bound it for any input. */
export interface ParseMeter {
  steps: number;
}

function queryError(message: string, position: number): AppError {
  // Shown to people: characters count from 1 (the `position` property stays 0-based).
  return new AppError("invalid_query", `${message} (at character ${position + 1}).`, { position });
}

/** Tracks parenthesis nesting across the unquoted parts of the query. */
function depthTracker(meter: ParseMeter) {
  let depth = 0;
  return (part: string, at: number) => {
    for (let k = 0; k < part.length; k++) {
      meter.steps++;
      const c = part.charCodeAt(k);
      if (c === 40 /* ( */) {
        depth++;
        if (depth > QUERY_LIMITS.depth) throw queryError(`Parentheses are nested more than ${QUERY_LIMITS.depth} deep`, at + k);
      } else if (c === 41 /* ) */ && depth > 0) depth--;
    }
  };
}

export function parseQuery(input: string, meter: ParseMeter = { steps: 0 }): ParsedQuery {
  if (input.length > QUERY_LIMITS.length)
    throw queryError(`The query is longer than ${QUERY_LIMITS.length} characters`, QUERY_LIMITS.length);
  const terms: QueryTerm[] = [];
  const text: string[] = [];
  const nest = depthTracker(meter);
  let values = 0;
  const count = (at: number, listValues = 0) => {
    if (terms.length + text.length >= QUERY_LIMITS.terms) throw queryError(`The query has more than ${QUERY_LIMITS.terms} terms`, at);
    values += listValues;
    if (values > QUERY_LIMITS.values) throw queryError(`The query's lists hold more than ${QUERY_LIMITS.values} values`, at);
  };
  let i = 0;
  while (i < input.length) {
    meter.steps++;
    if (/\s/.test(input[i] as string)) {
      i++;
      continue;
    }
    TERM.lastIndex = i;
    const m = TERM.exec(input);
    if (m) {
      meter.steps += m[0].length;
      const term = termOf(m, i);
      count(i, term.values?.length ?? 0);
      if (!(m[3] as string).startsWith('"')) nest(m[0], i);
      terms.push(term);
      i = TERM.lastIndex;
      continue;
    }
    if (input[i] === '"') {
      const end = input.indexOf('"', i + 1);
      if (end === -1) throw new AppError("invalid_query", `Unterminated quote at character ${i + 1}.`, { position: i });
      meter.steps += end + 1 - i;
      count(i);
      text.push(input.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    let end = i;
    while (end < input.length && !/\s/.test(input[end] as string)) end++;
    meter.steps += end - i;
    count(i);
    nest(input.slice(i, end), i);
    text.push(input.slice(i, end));
    i = end;
  }
  return { terms, text };
}

function termOf(m: RegExpExecArray, at: number): QueryTerm {
  const raw = m[3] as string;
  // Reserved keys are case-insensitive; tag keys keep their case (tags are case-sensitive).
  const lower = (m[2] as string).toLowerCase();
  const key = isReservedKey(lower) ? lower : (m[2] as string);
  const negated = m[1] === "!";
  if (raw.startsWith('"')) {
    if (raw.length < 2 || !raw.endsWith('"') || raw.endsWith('\\"'))
      throw new AppError("invalid_query", `Unterminated quote at character ${at + 1}.`, { position: at });
    const value = (m[4] ?? "").replace(/\\(.)/g, "$1");
    if (value === "") throw queryError(`"${m[2]}:" needs a value`, at);
    return { key, value, negated, position: at };
  }
  if (raw.startsWith("[")) {
    if (!raw.endsWith("]")) throw queryError(`Unterminated list for "${m[2]}:"`, at);
    const values = raw
      .slice(1, -1)
      .split(",")
      .map((v) => v.trim().replace(/^"(.*)"$/, "$1"))
      .filter((v) => v !== "");
    if (values.length === 0) throw queryError(`"${m[2]}:[]" needs at least one value`, at);
    return { key, value: values[0] as string, negated, position: at, values };
  }
  if (raw === "") throw queryError(`"${m[2]}:" needs a value`, at);
  return { key, value: raw, negated, position: at };
}

// ---------------------------------------------------------------------------------------------
// The full language

/** `is:` values: statuses, substatuses and assignment shorthands. */
export const IS_VALUES = ["unresolved", "resolved", "ignored", "regressed", "new", "ongoing", "assigned", "unassigned"] as const;
export type IsValue = (typeof IS_VALUES)[number];
export const LEVEL_VALUES = ["fatal", "error", "warning", "info", "debug"] as const;

export type SearchCondition =
  /** `is:` — values OR'ed; status values and substatuses (`new`, `ongoing`, `regressed`) */
  | { kind: "status"; values: Array<Exclude<IsValue, "assigned" | "unassigned">>; negated: boolean }
  /** `assigned:` — `me`, `none`, a member's email or user id; OR'ed */
  | { kind: "assigned"; values: string[]; negated: boolean }
  | { kind: "level"; values: string[]; negated: boolean }
  /** project slugs */
  | { kind: "project"; values: string[]; negated: boolean }
  /** any tag (environment, release, user.email, browser…); values may hold `*` wildcards */
  | { kind: "tag"; key: string; values: string[]; negated: boolean }
  /** `has:user` (someone was affected) or `has:<tag>` */
  | { kind: "has"; key: string; negated: boolean }
  /** `issue.type:` — the issue's kind (error, monitor_check_in_failure, uptime_domain_failure…); OR'ed */
  | { kind: "type"; values: string[]; negated: boolean }
  /** Next.js digest match keys */
  | { kind: "digest"; values: string[]; negated: boolean }
  /** epoch-ms bound on first/last seen (inclusive) */
  | { kind: "time"; field: "firstSeen" | "lastSeen"; op: "gte" | "lte"; at: number }
  /** `timesSeen:>10`: the issue's event counter compared with a number */
  | { kind: "count"; op: CountOp; value: number; negated: boolean }
  /** a word or quoted phrase that must appear in the title or culprit */
  | { kind: "text"; value: string };

export interface IssueSearch {
  conditions: SearchCondition[];
  /** true when the query says anything about status (`is:` other than assignment), so no default status applies */
  mentionsStatus: boolean;
}

export type CountOp = "gt" | "gte" | "lt" | "lte" | "eq";
const COUNT_OPS: Record<string, CountOp> = { ">": "gt", ">=": "gte", "<": "lt", "<=": "lte", "=": "eq", "": "eq" };
const COUNT_KEYS = new Set(["timesseen", "times_seen"]);

/**
 * Tags every event may carry because Errata derives them (search/event-tags.ts): valid search keys
 * even before any event has them.
 */
const DERIVED_TAGS = new Set([
  "user",
  "dist",
  "transaction",
  "server_name",
  "browser",
  "browser.name",
  "os",
  "os.name",
  "runtime",
  "device",
  "url",
  "handled",
  "mechanism",
]);

const TIME_KEYS: Record<string, "firstSeen" | "lastSeen"> = {
  firstseen: "firstSeen",
  first_seen: "firstSeen",
  age: "firstSeen",
  lastseen: "lastSeen",
  last_seen: "lastSeen",
};

/** Keys matched case-insensitively: the language's own and the well-known tags. */
const RESERVED_KEYS = new Set([
  "is",
  "level",
  "project",
  "assigned",
  "assigned_to",
  "has",
  "digest",
  "environment",
  "env",
  "release",
  "user.email",
  "user.id",
  "user.username",
  "user.ip",
  "firstseen",
  "first_seen",
  "age",
  "lastseen",
  "last_seen",
  "timesseen",
  "times_seen",
  "issue.type",
]);

function isReservedKey(lower: string): boolean {
  return RESERVED_KEYS.has(lower);
}

/** `user.id:42` searches the Sentry-style `user` tag (`id:42`); `user.email` is a tag of its own. */
const USER_FIELDS: Record<string, string> = { "user.id": "id", "user.username": "username", "user.ip": "ip" };

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `-24h` (within the last 24 h), `+7d` (more than 7 days ago), `>2024-05-01`, `<=2024-05-01T12:00`. */
function timeBounds(t: QueryTerm, field: "firstSeen" | "lastSeen", now: number): SearchCondition {
  const rel = /^([+-])(\d{1,6})([mhdw])$/.exec(t.value);
  if (rel) {
    const at = now - Number(rel[2]) * (UNITS[rel[3] as string] as number);
    const within = rel[1] === "-";
    return { kind: "time", field, op: within !== t.negated ? "gte" : "lte", at };
  }
  const abs = /^(>=|<=|>|<)(.+)$/.exec(t.value);
  const at = abs ? parseDate(abs[2] as string) : null;
  if (!abs || at === null)
    throw queryError(`"${t.key}:${t.value}" is not a time: use -24h (within), +7d (older than) or >2024-05-01`, t.position);
  const later = (abs[1] as string).startsWith(">");
  return { kind: "time", field, op: later !== t.negated ? "gte" : "lte", at };
}

function parseDate(s: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(s)) return null;
  const iso = s.length === 10 ? `${s}T00:00:00Z` : /Z|[+-]\d{2}:?\d{2}$/.test(s) ? s.replace(" ", "T") : `${s.replace(" ", "T")}Z`;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** `timesSeen:>10`, `times_seen:<=3`, `timesSeen:5` (exactly). */
function countBound(t: QueryTerm): SearchCondition {
  const m = /^(>=|<=|>|<|=)?(\d{1,15})$/.exec(t.value);
  if (!m || t.values) throw queryError(`"${t.key}:${t.value}" is not a count: use >10, >=10, <10, <=10 or 10`, t.position);
  return { kind: "count", op: COUNT_OPS[m[1] ?? ""] as CountOp, value: Number(m[2]), negated: t.negated };
}

function valuesOf(t: QueryTerm): string[] {
  return t.values ?? [t.value];
}

function statusCondition(t: QueryTerm): SearchCondition[] {
  const out: SearchCondition[] = [];
  const statuses: Array<Exclude<IsValue, "assigned" | "unassigned">> = [];
  for (const v of valuesOf(t).map((x) => x.toLowerCase())) {
    if (!(IS_VALUES as readonly string[]).includes(v))
      throw queryError(`Unknown status "${v}": use one of ${IS_VALUES.join(", ")}`, t.position);
    if (v === "assigned" || v === "unassigned") out.push({ kind: "assigned", values: ["none"], negated: (v === "assigned") !== t.negated });
    else statuses.push(v as Exclude<IsValue, "assigned" | "unassigned">);
  }
  if (statuses.length > 0) out.push({ kind: "status", values: statuses, negated: t.negated });
  return out;
}

function termCondition(t: QueryTerm, now: number): SearchCondition[] {
  const key = t.key;
  if (key === "is") return statusCondition(t);
  if (key === "level") {
    const values = valuesOf(t).map((v) => v.toLowerCase());
    const bad = values.find((v) => !(LEVEL_VALUES as readonly string[]).includes(v));
    if (bad !== undefined) throw queryError(`Unknown level "${bad}": use one of ${LEVEL_VALUES.join(", ")}`, t.position);
    return [{ kind: "level", values, negated: t.negated }];
  }
  if (key === "issue.type") return [{ kind: "type", values: valuesOf(t).map((v) => v.toLowerCase()), negated: t.negated }];
  if (key === "project") return [{ kind: "project", values: valuesOf(t).map((v) => v.toLowerCase()), negated: t.negated }];
  if (key === "assigned" || key === "assigned_to") return [{ kind: "assigned", values: valuesOf(t), negated: t.negated }];
  if (key === "has") {
    if (t.values) throw queryError(`"has:" takes one key`, t.position);
    return [{ kind: "has", key: t.value.toLowerCase() === "user" ? "user" : t.value, negated: t.negated }];
  }
  if (key === "digest") {
    const keys = valuesOf(t).map((v) => {
      const d = parseDigest(v);
      if (!d) throw queryError(`"${v}" is not a Next.js digest`, t.position);
      return d.key;
    });
    return [{ kind: "digest", values: keys, negated: t.negated }];
  }
  const timeField = TIME_KEYS[key];
  if (timeField) {
    if (t.values) throw queryError(`"${t.key}:" takes one time`, t.position);
    return [timeBounds(t, timeField, now)];
  }
  if (COUNT_KEYS.has(key)) return [countBound(t)];
  const userField = USER_FIELDS[key];
  if (userField) return [{ kind: "tag", key: "user", values: valuesOf(t).map((v) => `${userField}:${v}`), negated: t.negated }];
  // Any other key is a tag (`env:` is short for `environment:`).
  return [{ kind: "tag", key: key === "env" ? "environment" : key, values: valuesOf(t), negated: t.negated }];
}

/** Keys of the query that are neither the language's own nor derived tags: they must be tags in the data. */
export function tagKeysToCheck(q: ParsedQuery): string[] {
  return [...new Set(q.terms.map((t) => t.key).filter((k) => !isReservedKey(k.toLowerCase()) && !DERIVED_TAGS.has(k)))];
}

/**
 * The typed conditions of a query (throws `invalid_query` with the position of the bad term).
 * With `knownTags` (the tag keys the searched projects have), any other key is an error at its
 * position, as a bad value is: `timesSee:>10` matching nothing in silence looked like an answer.
 */
export function compileIssueSearch(q: ParsedQuery, now: number, knownTags?: ReadonlySet<string>): IssueSearch {
  const conditions: SearchCondition[] = [];
  for (const t of q.terms) {
    if (knownTags && !knownTags.has(t.key) && tagKeysToCheck({ terms: [t], text: [] }).length > 0)
      throw queryError(
        `Unknown search key "${t.key}": use is, level, environment, release, project, assigned, has, user.email, digest, firstSeen, lastSeen, timesSeen or a tag key these projects have`,
        t.position,
      );
    conditions.push(...termCondition(t, now));
  }
  for (const w of q.text) if (w.trim() !== "") conditions.push({ kind: "text", value: w.trim() });
  return { conditions, mentionsStatus: conditions.some((c) => c.kind === "status") };
}

/** Parses and compiles in one step. */
export function parseIssueSearch(input: string, now: number, knownTags?: ReadonlySet<string>): IssueSearch {
  return compileIssueSearch(parseQuery(input), now, knownTags);
}

/** A pasted event id (32 hex, dashes allowed), or null. */
export function pastedEventId(query: string): string | null {
  const s = query.trim().replace(/-/g, "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(s) ? s : null;
}
