/**
 * Sentry's issues and events (`/projects/{org}/{project}/issues/`, `/issues/{id}/events/?full=true`,
 * `/issues/{id}/hashes/`) for an import with `--issues` (issue 32), without I/O:
 * - an issue keeps its status, assignee, first/last seen and counts as the source says them (only
 *   its latest events move, so counting them would lose history);
 * - an event in Sentry's API shape (`entries`, tags as a list, camelCase frames) becomes the SDK
 *   event it was, so Errata's own normalising, scrubbing and grouping read it like any other;
 * - `--since 30d` as a cut-off time.
 */
import { z } from "zod";
import type { IgnoreCondition, IssueStatus, IssueSubstatus, Resolution } from "../issue-state/types";

const id = z.union([z.string(), z.number()]).transform(String);
const count = z.union([z.string(), z.number()]).transform((v) => Math.max(0, Math.floor(Number(v) || 0)));

export const sentryIssueSchema = z.object({
  id,
  shortId: z.string().nullish(),
  title: z.string().nullish(),
  culprit: z.string().nullish(),
  level: z.string().nullish(),
  status: z.string().nullish(),
  substatus: z.string().nullish(),
  type: z.string().nullish(),
  firstSeen: z.string().nullish(),
  lastSeen: z.string().nullish(),
  count: count.nullish(),
  userCount: count.nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  assignedTo: z.object({ type: z.string().nullish(), id: id.nullish(), name: z.string().nullish(), email: z.string().nullish() }).nullish(),
});
export type SentryIssue = z.infer<typeof sentryIssueSchema>;

/**
 * The number of a source short id (`SHOP-API-12` → 12) when Errata can show it unchanged: a
 * decimal suffix, as Errata, GlitchTip and Sentry's first 9 issues write it. Sentry writes larger
 * numbers in base 32 (`SHOP-API-A` is its 10th): those have letters, cannot be shown as they were
 * and get a fresh number here (null), the old id staying resolvable as an alias.
 */
export function importedShortNumber(shortId: string | null | undefined): number | null {
  const m = /-(\d{1,9})$/.exec(shortId ?? "");
  const n = m ? Number(m[1]) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** The suffix of a short id Errata cannot show as it was (`SHOP-API-1A` → `1A`), upper-cased; null otherwise. */
export function shortIdAlias(shortId: string | null | undefined): string | null {
  const m = /-([0-9A-Za-z]{1,13})$/.exec(shortId ?? "");
  if (!m || importedShortNumber(shortId) !== null) return null;
  return (m[1] as string).toUpperCase();
}

const SENTRY_BASE32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A number no kept short id of the source's project exceeds, from its newest issue's short id: the
 * decimal number, or for Sentry's base-32 form its value (a decimal reading of base-32 digits is
 * never larger). 0 when it cannot be read.
 */
export function shortIdCeiling(shortId: string | null | undefined): number {
  const kept = importedShortNumber(shortId);
  if (kept !== null) return kept;
  const suffix = shortIdAlias(shortId);
  if (suffix === null) return 0;
  let n = 0;
  for (const ch of suffix) {
    const d = SENTRY_BASE32.indexOf(ch === "O" ? "0" : ch === "I" || ch === "L" ? "1" : ch);
    if (d < 0) return 0;
    n = n * 32 + d;
  }
  return Number.isSafeInteger(n) ? n : 0;
}

export const sentryApiEventSchema = z.record(z.string(), z.unknown());
export const sentryHashSchema = z.object({ id: z.string().min(1) });

/** `--since 30d` (also h, w, m for minutes… as Sentry's statsPeriod): the cut-off epoch ms, or null when not a period. */
export function sinceCutoff(period: string, now: number): number | null {
  const m = /^(\d{1,5})([mhdw])$/.exec(period.trim());
  if (!m) return null;
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as "m" | "h" | "d" | "w"];
  return now - Number(m[1]) * unit;
}

const LEVELS = new Set(["fatal", "error", "warning", "info", "debug"]);

export interface ImportedIssueState {
  status: IssueStatus;
  substatus: IssueSubstatus;
  resolution: Resolution | null;
  ignore: IgnoreCondition | null;
}

/** Sentry's status and substatus as Errata's (archived until escalating: ignored until unignored by hand). */
export function importedIssueState(i: SentryIssue): ImportedIssueState {
  if (i.status === "resolved") return { status: "resolved", substatus: "resolved", resolution: { kind: "now" }, ignore: null };
  if (i.status === "ignored" || i.status === "muted" || i.status === "archived") {
    return { status: "ignored", substatus: "archived_forever", resolution: null, ignore: { kind: "forever" } };
  }
  const sub: IssueSubstatus = i.substatus === "new" ? "new" : i.substatus === "regressed" ? "regressed" : "ongoing";
  return { status: "unresolved", substatus: sub, resolution: null, ignore: null };
}

export function importedLevel(level: string | null | undefined): string {
  return level && LEVELS.has(level) ? level : "error";
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Tags Sentry derives from the event's own fields: Errata derives them again from the same fields. */
const DERIVED_TAGS = new Set([
  "level",
  "environment",
  "release",
  "dist",
  "user",
  "url",
  "transaction",
  "mechanism",
  "handled",
  "server_name",
]);

const EVENT_ID = /^[0-9a-f]{32}$/;

/** A frame from Sentry's API shape back to the SDK's. */
function sdkFrame(f: unknown): Obj {
  if (!isObj(f)) return {};
  const out: Obj = {};
  const copy: Array<[string, string]> = [
    ["filename", "filename"],
    ["absPath", "abs_path"],
    ["module", "module"],
    ["package", "package"],
    ["platform", "platform"],
    ["instructionAddr", "instruction_addr"],
    ["symbolAddr", "symbol_addr"],
    ["function", "function"],
    ["rawFunction", "raw_function"],
    ["symbol", "symbol"],
    ["lineNo", "lineno"],
    ["colNo", "colno"],
    ["inApp", "in_app"],
    ["vars", "vars"],
  ];
  for (const [from, to] of copy) if (f[from] !== null && f[from] !== undefined) out[to] = f[from];
  const lineNo = typeof f.lineNo === "number" ? f.lineNo : null;
  if (Array.isArray(f.context) && lineNo !== null) {
    const lines = f.context.filter((c): c is [number, string] => Array.isArray(c) && typeof c[0] === "number");
    const at = lines.find(([n]) => n === lineNo);
    if (at) {
      out.context_line = String(at[1]);
      out.pre_context = lines.filter(([n]) => n < lineNo).map(([, l]) => String(l));
      out.post_context = lines.filter(([n]) => n > lineNo).map(([, l]) => String(l));
    }
  }
  return out;
}

function sdkStacktrace(s: unknown): Obj | undefined {
  if (!isObj(s) || !Array.isArray(s.frames)) return undefined;
  return { frames: s.frames.map(sdkFrame) };
}

function sdkException(x: unknown): Obj {
  if (!isObj(x)) return {};
  const out: Obj = {};
  for (const k of ["type", "value", "module", "mechanism", "threadId"]) if (x[k] !== null && x[k] !== undefined) out[k] = x[k];
  const st = sdkStacktrace(x.stacktrace);
  if (st) out.stacktrace = st;
  return out;
}

/**
 * An event as Sentry's event API answers it → the SDK event it was. Errata's own answer also keeps
 * the SDK's keys (`exception`…); those win when present.
 */
export function sdkEventFromApi(e: Obj): Obj | null {
  const eventId = String(e.eventID ?? e.id ?? "")
    .replaceAll("-", "")
    .toLowerCase();
  if (!EVENT_ID.test(eventId)) return null;
  const tags = Array.isArray(e.tags) ? e.tags.filter(isObj) : [];
  const tag = (k: string) => {
    const t = tags.find((x) => x.key === k);
    return typeof t?.value === "string" ? t.value : undefined;
  };
  const out: Obj = {
    event_id: eventId,
    timestamp: e.dateCreated ?? e.dateReceived,
    platform: typeof e.platform === "string" ? e.platform : "other",
    level: typeof e.level === "string" ? e.level : (tag("level") ?? "error"),
    environment: typeof e.environment === "string" ? e.environment : tag("environment"),
    release: isObj(e.release) ? e.release.version : typeof e.release === "string" ? e.release : tag("release"),
    dist: typeof e.dist === "string" ? e.dist : undefined,
    tags: Object.fromEntries(
      tags
        .filter((t) => typeof t.key === "string" && typeof t.value === "string" && !DERIVED_TAGS.has(t.key as string))
        .map((t) => [t.key, t.value]),
    ),
  };
  for (const k of ["user", "contexts", "sdk", "extra", "fingerprint", "modules", "request", "transaction", "culprit", "server_name"]) {
    const v = e[k === "server_name" ? "serverName" : k] ?? e[k];
    if (v !== null && v !== undefined) out[k] = v;
  }
  if (typeof e.message === "string" && e.message) out.message = e.message;
  for (const entry of Array.isArray(e.entries) ? e.entries.filter(isObj) : []) {
    const data = isObj(entry.data) ? entry.data : {};
    if (entry.type === "exception" && Array.isArray(data.values)) out.exception = { values: data.values.map(sdkException) };
    else if (entry.type === "message") out.logentry = { formatted: data.formatted, message: data.message, params: data.params };
    else if (entry.type === "breadcrumbs" && Array.isArray(data.values)) out.breadcrumbs = { values: data.values };
    else if (entry.type === "request") out.request = data;
    else if (entry.type === "threads" && Array.isArray(data.values))
      out.threads = { values: data.values.filter(isObj).map((t) => ({ ...t, stacktrace: sdkStacktrace(t.stacktrace) })) };
  }
  // Errata's own event answer carries the stored event's interfaces as they are.
  for (const k of ["exception", "logentry", "breadcrumbs", "threads", "request"]) if (isObj(e[k])) out[k] = e[k];
  return out;
}
