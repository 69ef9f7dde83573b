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
 * and any other key is a tag (`browser:"Chrome 120"`, `url:*checkout*`). Pure: `now` is an argument.
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

function queryError(message: string, position: number): AppError {
  // Shown to people: characters count from 1 (the `position` property stays 0-based).
  return new AppError("invalid_query", `${message} (at character ${position + 1}).`, { position });
}

export function parseQuery(input: string): ParsedQuery {
  const terms: QueryTerm[] = [];
  const text: string[] = [];
  let i = 0;
  while (i < input.length) {
    if (/\s/.test(input[i] as string)) {
      i++;
      continue;
    }
    TERM.lastIndex = i;
    const m = TERM.exec(input);
    if (m) {
      terms.push(termOf(m, i));
      i = TERM.lastIndex;
      continue;
    }
    if (input[i] === '"') {
      const end = input.indexOf('"', i + 1);
      if (end === -1) throw new AppError("invalid_query", `Unterminated quote at character ${i + 1}.`, { position: i });
      text.push(input.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    let end = i;
    while (end < input.length && !/\s/.test(input[end] as string)) end++;
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
  /** Next.js digest match keys */
  | { kind: "digest"; values: string[]; negated: boolean }
  /** epoch-ms bound on first/last seen (inclusive) */
  | { kind: "time"; field: "firstSeen" | "lastSeen"; op: "gte" | "lte"; at: number }
  /** a word or quoted phrase that must appear in the title or culprit */
  | { kind: "text"; value: string };

export interface IssueSearch {
  conditions: SearchCondition[];
  /** true when the query says anything about status (`is:` other than assignment), so no default status applies */
  mentionsStatus: boolean;
}

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
  const userField = USER_FIELDS[key];
  if (userField) return [{ kind: "tag", key: "user", values: valuesOf(t).map((v) => `${userField}:${v}`), negated: t.negated }];
  // Any other key is a tag (`env:` is short for `environment:`).
  return [{ kind: "tag", key: key === "env" ? "environment" : key, values: valuesOf(t), negated: t.negated }];
}

/** The typed conditions of a query (throws `invalid_query` with the position of the bad term). */
export function compileIssueSearch(q: ParsedQuery, now: number): IssueSearch {
  const conditions: SearchCondition[] = [];
  for (const t of q.terms) conditions.push(...termCondition(t, now));
  for (const w of q.text) if (w.trim() !== "") conditions.push({ kind: "text", value: w.trim() });
  return { conditions, mentionsStatus: conditions.some((c) => c.kind === "status") };
}

/** Parses and compiles in one step. */
export function parseIssueSearch(input: string, now: number): IssueSearch {
  return compileIssueSearch(parseQuery(input), now);
}

/** A pasted event id (32 hex, dashes allowed), or null. */
export function pastedEventId(query: string): string | null {
  const s = query.trim().replace(/-/g, "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(s) ? s : null;
}
