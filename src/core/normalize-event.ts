/**
 * Lenient normalisation of an SDK event (reference §4, SPEC §5). Pure: the receive time, client IP
 * and event id are arguments. It never throws on odd input — every shape seen in the corpus is
 * coerced, unknown fields are kept, and anything lost or replaced is recorded in `errata.notes`.
 */

import { limitDepth, MAX_EVENT_DEPTH, previewJson } from "./bounded-json";
import {
  BAG_LIMITS,
  type BagLimit,
  type Breadcrumb,
  CHAR_LIMITS,
  type CharLimit,
  CLOCK_DRIFT_THRESHOLD_SECS,
  DEFAULT_TRIM_LIMITS,
  type EventRequest,
  type EventUser,
  type ExceptionValue,
  type Frame,
  type Level,
  type LogEntry,
  MAX_SECS_IN_FUTURE,
  MAX_SECS_IN_PAST,
  type NormalizeContext,
  type NormalizedEvent,
  type Pairs,
  type ProcessingNote,
  type Stacktrace,
  type Thread,
  type TrimLimits,
} from "./event";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Stringifies a scalar for fields that must be strings (tags, ids); objects become JSON. */
function str(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (typeof v === "object") {
    try {
      return JSON.stringify(v);
    } catch {
      return String(v);
    }
  }
  return String(v);
}

class Notes {
  readonly list: ProcessingNote[] = [];
  add(type: string, path: string | undefined, detail: string): void {
    this.list.push(path === undefined ? { type, detail } : { type, path, detail });
  }
}

export function normalizeEvent(raw: unknown, ctx: NormalizeContext, limits: TrimLimits = DEFAULT_TRIM_LIMITS): NormalizedEvent {
  const notes = new Notes();
  let src: Obj;
  if (isObj(raw)) {
    // Shallow copy: we replace top-level fields, never mutate the caller's object in place.
    src = { ...raw };
  } else {
    notes.add(
      "invalid_event",
      undefined,
      `The event is ${raw === null ? "null" : Array.isArray(raw) ? "an array" : `a ${typeof raw}`}, not a JSON object; an empty event was stored instead.`,
    );
    src = {};
  }
  // Our own namespace is never taken from the SDK.
  if ("errata" in src) delete src.errata;

  const receivedSecs = ctx.receivedAt / 1000;
  const event = src as NormalizedEvent;
  event.event_id = normalizeId(src.event_id, ctx.eventId, notes);
  event.received = receivedSecs;
  const drift = clockDrift(ctx, notes);
  event.timestamp = normalizeTimestamp(src.timestamp, receivedSecs, drift, notes);
  event.level = normalizeLevel(src.level, notes);
  event.platform = typeof src.platform === "string" && src.platform.length > 0 ? src.platform : "other";

  for (const [key, limit] of STRING_FIELDS) normalizeOptionalString(event, key, limit, notes);
  normalizeMessage(event, notes, limits);
  normalizeExceptions(event, notes, limits);
  normalizeThreads(event, notes, limits);
  normalizeStacktraceField(event, "stacktrace", notes, limits);
  normalizeBreadcrumbs(event, notes, limits, drift);
  normalizeTags(event, notes, limits);
  normalizeContexts(event, notes);
  // The request first: `request.env.REMOTE_ADDR` may be `{{auto}}` and feeds the user's IP.
  normalizeRequest(event, ctx, notes);
  normalizeUser(event, ctx, notes);
  normalizeFingerprint(event, notes);
  normalizeExtra(event, notes);
  normalizeUnknownDepth(event, notes);

  event.errata = { notes: notes.list };
  return event;
}

/**
 * Last pass: whatever else the SDK sent (unknown fields, `sdk`, `debug_meta`, …) is kept, but no
 * deeper than MAX_EVENT_DEPTH: storing, scrubbing, grouping and rendering all recurse.
 */
function normalizeUnknownDepth(event: NormalizedEvent, notes: Notes): void {
  const { value, cut } = limitDepth(event, MAX_EVENT_DEPTH);
  if (cut === 0) return;
  const limited = value as Obj;
  for (const key in limited) {
    // defineProperty: a `__proto__` key (an own key after JSON.parse) must stay a plain key.
    if (limited[key] !== (event as Obj)[key])
      Object.defineProperty(event, key, { value: limited[key], enumerable: true, writable: true, configurable: true });
  }
  notes.add(
    "trimmed",
    undefined,
    `${cut} value(s) nested deeper than ${MAX_EVENT_DEPTH} levels were replaced by a preview of their JSON text.`,
  );
}

/** Top-level strings and their Relay limits (reference §6.2). */
const STRING_FIELDS: Array<[string, CharLimit]> = [
  ["logger", CHAR_LIMITS.logger],
  ["transaction", CHAR_LIMITS.culprit],
  ["server_name", CHAR_LIMITS.symbol],
  ["release", CHAR_LIMITS.tagValue],
  ["dist", CHAR_LIMITS.dist],
  ["environment", CHAR_LIMITS.environment],
  ["culprit", CHAR_LIMITS.culprit],
];

// ---------------------------------------------------------------------------------------------
// Scalars

function normalizeId(payloadId: unknown, ctxId: string | undefined, notes: Notes): string {
  const fromCtx = normalizeHex32(ctxId);
  if (fromCtx) return fromCtx;
  const fromPayload = normalizeHex32(payloadId);
  if (fromPayload) return fromPayload;
  // The pipeline always passes an id; this only happens when core is called directly.
  notes.add("invalid_event_id", "event_id", "The event has no valid event id.");
  return "0".repeat(32);
}

function normalizeHex32(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const hex = v.replace(/-/g, "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : undefined;
}

/** Unix seconds from a number, a numeric string or an RFC 3339 / ISO 8601 string (UTC if no zone). */
export function parseTimestamp(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h = "0", mi = "0", sec = "0", frac, zone] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec));
  if (Number.isNaN(ms)) return undefined;
  let secs = ms / 1000 + (frac ? Number(`0${frac}`) : 0);
  if (zone && zone !== "Z" && zone !== "z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    const offset = Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4) || "0") * 60;
    secs -= sign * offset;
  }
  return secs;
}

/**
 * Seconds to add to the SDK's timestamps (Relay's clock-drift correction): when the envelope's
 * `sent_at` is 55 minutes or more away from the receive time, the device clock is wrong and every
 * timestamp it produced is shifted by the difference. 0 otherwise.
 */
function clockDrift(ctx: NormalizeContext, notes: Notes): number {
  if (ctx.sentAt === undefined || !Number.isFinite(ctx.sentAt)) return 0;
  const drift = (ctx.receivedAt - ctx.sentAt) / 1000;
  if (Math.abs(drift) < CLOCK_DRIFT_THRESHOLD_SECS) return 0;
  const minutes = Math.round(Math.abs(drift) / 60);
  notes.add(
    "clock_drift",
    "timestamp",
    `The SDK's clock was ${minutes} minutes ${drift > 0 ? "behind" : "ahead"} (sent_at vs receive time); its timestamps were shifted by ${Math.round(drift)} s.`,
  );
  return drift;
}

/** Beyond this many seconds (year 5138) a number is taken to be in a finer unit. */
const MAX_PLAUSIBLE_SECS = 1e11;

const FINER_UNITS = ["milliseconds", "microseconds", "nanoseconds"] as const;

/**
 * SDKs and hand-rolled clients send epoch milliseconds, microseconds or nanoseconds where seconds
 * belong (8.64e12 s is already past what a Date can hold). Scales such a number down to seconds
 * and says from which unit; undefined when no unit makes it plausible.
 */
export function coerceEpochSeconds(n: number): { secs: number; unit?: (typeof FINER_UNITS)[number] } | undefined {
  if (!Number.isFinite(n)) return undefined;
  let secs = n;
  let unit: (typeof FINER_UNITS)[number] | undefined;
  for (const finer of FINER_UNITS) {
    if (Math.abs(secs) <= MAX_PLAUSIBLE_SECS) break;
    secs /= 1000;
    unit = finer;
  }
  if (Math.abs(secs) > MAX_PLAUSIBLE_SECS) return undefined;
  return unit === undefined ? { secs } : { secs, unit };
}

function normalizeTimestamp(v: unknown, receivedSecs: number, drift: number, notes: Notes): number {
  if (v === undefined || v === null) return receivedSecs;
  const parsed = parseTimestamp(v);
  const coerced = parsed === undefined ? undefined : coerceEpochSeconds(parsed);
  if (coerced === undefined) {
    notes.add("invalid_timestamp", "timestamp", "The timestamp could not be parsed; the receive time is used.");
    return receivedSecs;
  }
  if (coerced.unit !== undefined)
    notes.add("coerced", "timestamp", `The timestamp was a number of ${coerced.unit}, not seconds; it was converted to seconds.`);
  const secs = coerced.secs + drift;
  if (secs < receivedSecs - MAX_SECS_IN_PAST) {
    notes.add("clock_drift", "timestamp", `The timestamp ${isoOf(secs)} is more than 30 days in the past; the receive time is used.`);
    return receivedSecs;
  }
  if (secs > receivedSecs + MAX_SECS_IN_FUTURE) {
    notes.add("clock_drift", "timestamp", `The timestamp ${isoOf(secs)} is more than 60 s in the future; the receive time is used.`);
    return receivedSecs;
  }
  return secs;
}

/** ISO text of epoch seconds, or the number itself when no Date can hold it. */
function isoOf(secs: number): string {
  const d = new Date(secs * 1000);
  return Number.isNaN(d.getTime()) ? String(secs) : d.toISOString();
}

const LEVELS: Record<string, Level> = {
  fatal: "fatal",
  critical: "fatal",
  error: "error",
  warning: "warning",
  warn: "warning",
  info: "info",
  log: "info",
  debug: "debug",
};

function normalizeLevel(v: unknown, notes: Notes): Level {
  if (v === undefined || v === null || v === "") return "error";
  const level = typeof v === "string" ? LEVELS[v.toLowerCase()] : undefined;
  if (level) return level;
  notes.add("invalid_level", "level", `Unknown level ${JSON.stringify(str(v).slice(0, 50))}; "error" is used.`);
  return "error";
}

function normalizeOptionalString(event: Obj, key: string, limit: CharLimit, notes: Notes): void {
  const v = event[key];
  if (v === undefined) return;
  if (v === null || v === "") {
    delete event[key];
    return;
  }
  if (typeof v === "string") {
    event[key] = trimString(v, limit, key, notes);
    return;
  }
  if (typeof v === "number" || typeof v === "boolean") {
    event[key] = String(v);
    return;
  }
  notes.add("dropped", key, `\`${key}\` is not a string.`);
  delete event[key];
}

/** The cut part of `trimString` without a note; undefined when `s` fits. */
function cutString(s: string, max: number, allowance = 0): string | undefined {
  // UTF-16 length ≥ code points: a string this short fits whatever it contains.
  if (s.length <= max + allowance) return undefined;
  const chars = Array.from(s);
  if (chars.length <= max + allowance) return undefined;
  return `${chars.slice(0, Math.max(0, max - 3)).join("")}...`;
}

/**
 * Cuts a string longer than `max` (+ the limit's allowance) characters (code points) to `max`,
 * ending it with "..." like Relay, and notes it.
 */
function trimString(s: string, limit: number | CharLimit, path: string, notes: Notes): string {
  const { max, allowance } = typeof limit === "number" ? { max: limit, allowance: 0 } : limit;
  const cut = cutString(s, max, allowance);
  if (cut === undefined) return s;
  notes.add("trimmed", path, `Cut from ${Array.from(s).length} to ${max} characters.`);
  return cut;
}

// ---------------------------------------------------------------------------------------------
// Data bags (Relay's `bag_size`): a serialised-size budget and a depth limit

interface BagBudget {
  left: number;
  depthCut: boolean;
  sizeCut: boolean;
}

const DROP = Symbol("drop");

/**
 * Trims a JSON-like value to the budget: strings are cut to fit, nesting beyond `maxDepth`
 * becomes its JSON text, and once the budget is spent the remaining entries are dropped. Returns
 * the same reference when nothing changed (no copy for the common, small case).
 */
function trimBagValue(v: unknown, budget: BagBudget, depth: number, maxDepth: number): unknown {
  if (budget.left <= 0) {
    budget.sizeCut = true;
    return DROP;
  }
  if (typeof v === "string") {
    const cost = v.length + 2;
    if (cost <= budget.left) {
      budget.left -= cost;
      return v;
    }
    budget.sizeCut = true;
    // Not even "x..." fits: drop rather than keep a meaningless stub.
    if (budget.left < 8) {
      budget.left = 0;
      return DROP;
    }
    // Budgets count UTF-16 units (cost is v.length); cut on a code point boundary without
    // splitting the string into an array of characters (this runs on 50 KB strings).
    let end = budget.left - 5;
    const last = v.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    const cut = `${v.slice(0, end)}...`;
    budget.left = 0;
    return cut;
  }
  if (v === null || typeof v !== "object") {
    const cost = v === null || v === undefined ? 4 : String(v).length;
    if (cost > budget.left) {
      budget.left = 0;
      budget.sizeCut = true;
      return DROP;
    }
    budget.left -= cost;
    return v;
  }
  if (depth >= maxDepth) {
    budget.depthCut = true;
    // Bounded: the rest may be nested 100,000 deep or megabytes long; only `left` chars are kept.
    const text = previewJson(v, budget.left + 8) ?? "";
    return trimBagValue(text, budget, depth, maxDepth);
  }
  budget.left -= 2;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = trimBagValue(v[i], budget, depth + 1, maxDepth);
      if (item === DROP) return out ?? v.slice(0, i);
      if (item !== v[i] && !out) out = v.slice(0, i);
      if (out) out.push(item);
      budget.left -= 1;
    }
    return out ?? v;
  }
  const obj = v as Obj;
  let out: Obj | undefined;
  for (const key in obj) {
    const value = obj[key];
    budget.left -= key.length + 3;
    const item = budget.left > 0 ? trimBagValue(value, budget, depth + 1, maxDepth) : DROP;
    if ((item === DROP || item !== value) && !out) out = copyUntil(obj, key);
    if (item === DROP) return out;
    if (out) out[key] = item;
  }
  return out ?? v;
}

/** The entries of `obj` before `stop` (no Object.entries arrays on the hot path). */
function copyUntil(obj: Obj, stop: string): Obj {
  const out: Obj = {};
  for (const k in obj) {
    if (k === stop) break;
    out[k] = obj[k];
  }
  return out;
}

/** Trims a data bag; notes the path when anything changed. Undefined when nothing is left. */
function trimBag(v: unknown, limit: BagLimit, path: string, notes: Notes): unknown {
  const budget: BagBudget = { left: limit.maxBytes, depthCut: false, sizeCut: false };
  const out = trimBagValue(v, budget, 0, limit.maxDepth);
  if (out === v) return v;
  const why: string[] = [];
  if (budget.depthCut) why.push(`nesting deeper than ${limit.maxDepth} levels was flattened to text`);
  if (budget.sizeCut) why.push(`cut to about ${limit.maxBytes} bytes`);
  notes.add("trimmed", path, `Data bag over its limit: ${why.join("; ")}.`);
  return out === DROP ? undefined : out;
}

// ---------------------------------------------------------------------------------------------
// Message

function normalizeMessage(event: NormalizedEvent, notes: Notes, limits: TrimLimits): void {
  let entry: LogEntry | undefined;
  const rawEntry: unknown = event.logentry;
  if (typeof rawEntry === "string") entry = { formatted: rawEntry };
  else if (isObj(rawEntry)) entry = { ...rawEntry };
  else if (rawEntry !== undefined && rawEntry !== null) notes.add("dropped", "logentry", "`logentry` is neither an object nor a string.");

  // Legacy `message`: a string (JS captureMessage, Go) or the old `sentry.interfaces.Message`.
  const msg: unknown = event.message;
  if (msg !== undefined) {
    if (typeof msg === "string") {
      if (msg !== "") {
        if (!entry) entry = { formatted: msg };
        else if (entry.formatted === undefined) entry.formatted = msg;
        else if (entry.formatted !== msg) event.extra = { ...(isObj(event.extra) ? event.extra : {}), message: msg };
      }
    } else if (isObj(msg)) {
      if (!entry) entry = { ...msg };
    } else if (msg !== null) {
      notes.add("dropped", "message", "`message` is neither a string nor an object.");
    }
    delete event.message;
  }
  if (!entry) {
    delete event.logentry;
    return;
  }
  for (const key of ["formatted", "message"] as const) {
    const v = entry[key];
    if (v === undefined || v === null) {
      delete entry[key];
      continue;
    }
    entry[key] = trimString(typeof v === "string" ? v : str(v), messageLimit(limits), `logentry.${key}`, notes);
  }
  if (entry.formatted === undefined && typeof entry.message === "string") {
    entry.formatted = trimString(formatTemplate(entry.message, entry.params), messageLimit(limits), "logentry.formatted", notes);
  }
  if (entry.formatted === undefined && entry.message === undefined) {
    delete event.logentry;
    return;
  }
  event.logentry = entry;
}

const messageLimit = (limits: TrimLimits): CharLimit => ({ max: limits.messageChars, allowance: CHAR_LIMITS.message.allowance });

/** Interpolates printf-style templates (`%s`, `%(name)s`) the way Python's logging would. */
function formatTemplate(template: string, params: unknown): string {
  if (Array.isArray(params)) {
    let i = 0;
    return template.replace(/%[sdrif]/g, (m) => (i < params.length ? str(params[i++]) : m));
  }
  if (isObj(params)) {
    return template.replace(/%\((\w+)\)[sdrif]/g, (m, name: string) => (name in params ? str(params[name]) : m));
  }
  return template;
}

// ---------------------------------------------------------------------------------------------
// Exceptions, threads, stack traces

/** `{values: [...]}` or a bare list → the list, dropping null entries. */
function valuesOf(v: unknown, path: string, notes: Notes): { values: unknown[]; rest: Obj } | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return { values: v, rest: {} };
  if (isObj(v)) {
    const { values, ...rest } = v;
    if (Array.isArray(values)) return { values, rest };
    if (values === undefined || values === null) return { values: [], rest };
  }
  notes.add("dropped", path, `\`${path}\` is neither a list nor {values: [...]}.`);
  return undefined;
}

function normalizeExceptions(event: NormalizedEvent, notes: Notes, limits: TrimLimits): void {
  const got = valuesOf(event.exception, "exception", notes);
  if (!got) {
    delete event.exception;
    return;
  }
  const values: ExceptionValue[] = [];
  got.values.forEach((raw, i) => {
    const path = `exception.values.${i}`;
    if (!isObj(raw)) {
      if (raw !== null) notes.add("dropped", path, "An exception entry is not an object.");
      return;
    }
    const exc: ExceptionValue = { ...raw };
    for (const key of ["type", "value", "module"] as const) {
      const v = exc[key];
      if (v === undefined) continue;
      if (v === null || v === "") delete exc[key];
      else if (typeof v !== "string") exc[key] = str(v);
    }
    if (exc.type === undefined && exc.value === undefined) {
      notes.add("dropped", path, "An exception without type and value was dropped.");
      return;
    }
    if (exc.value !== undefined) exc.value = trimString(exc.value, messageLimit(limits), `${path}.value`, notes);
    if (exc.type !== undefined) exc.type = trimString(exc.type, CHAR_LIMITS.symbol, `${path}.type`, notes);
    if (exc.module !== undefined) exc.module = trimString(exc.module, CHAR_LIMITS.symbol, `${path}.module`, notes);
    if (exc.mechanism !== undefined && !isObj(exc.mechanism)) {
      notes.add("dropped", `${path}.mechanism`, "`mechanism` is not an object.");
      delete exc.mechanism;
    }
    if (isObj(exc.mechanism) && exc.mechanism.data !== undefined) {
      const data = trimBag(exc.mechanism.data, BAG_LIMITS.mechanismData, `${path}.mechanism.data`, notes);
      const { data: _old, ...mechanism } = exc.mechanism;
      exc.mechanism = data === undefined ? mechanism : { ...mechanism, data };
    }
    normalizeStacktraceField(exc, `${path}.stacktrace`, notes, limits);
    values.push(exc);
  });
  if (values.length === 0) {
    delete event.exception;
    return;
  }
  event.exception = { ...got.rest, values };
}

function normalizeThreads(event: NormalizedEvent, notes: Notes, limits: TrimLimits): void {
  const got = valuesOf(event.threads, "threads", notes);
  if (!got) {
    delete event.threads;
    return;
  }
  const values: Thread[] = [];
  got.values.forEach((raw, i) => {
    if (!isObj(raw)) {
      if (raw !== null) notes.add("dropped", `threads.values.${i}`, "A thread entry is not an object.");
      return;
    }
    const thread: Thread = { ...raw };
    normalizeStacktraceField(thread, `threads.values.${i}.stacktrace`, notes, limits);
    values.push(thread);
  });
  event.threads = { ...got.rest, values };
}

/** Normalises `holder.stacktrace` (an exception, a thread or the event itself). */
function normalizeStacktraceField(holder: Obj, path: string, notes: Notes, limits: TrimLimits): void {
  const st = holder.stacktrace;
  if (st === undefined) return;
  if (!isObj(st)) {
    if (st !== null) notes.add("dropped", path, "`stacktrace` is not an object.");
    delete holder.stacktrace;
    return;
  }
  holder.stacktrace = normalizeStacktrace(st, path, notes, limits);
}

function normalizeStacktrace(st: Obj, path: string, notes: Notes, limits: TrimLimits): Stacktrace {
  const rawFrames = st.frames;
  let objects: Obj[] = [];
  if (Array.isArray(rawFrames)) {
    objects = rawFrames.filter(isObj);
    if (objects.length !== rawFrames.length)
      notes.add("dropped", `${path}.frames`, `${rawFrames.length - objects.length} frame(s) were not objects.`);
  } else if (rawFrames !== undefined && rawFrames !== null) {
    notes.add("dropped", `${path}.frames`, "`frames` is not a list.");
  }
  if (objects.length > limits.maxFrames) {
    // Frames run oldest → newest; the newest (crash side) matter most. Cut before copying.
    notes.add("trimmed", `${path}.frames`, `Kept the newest ${limits.maxFrames} of ${objects.length} frames.`);
    objects = objects.slice(objects.length - limits.maxFrames);
  }
  const trimmed = { count: 0 };
  const frames = objects.map((f) => normalizeFrame(f, trimmed));
  if (trimmed.count > 0) notes.add("trimmed", `${path}.frames`, `Cut over-long names or paths in ${trimmed.count} frame field(s).`);
  const slimmed = slimFrames(frames, limits.maxFramesWithDetail);
  if (slimmed > 0)
    notes.add(
      "trimmed",
      `${path}.frames`,
      `Removed pre_context, post_context and vars from ${slimmed} frame(s): only ${limits.maxFramesWithDetail} keep them.`,
    );
  trimFrameVars(frames, path, notes);
  return { ...st, frames };
}

/** Each frame's `vars` is a data bag (after slimming, so only the frames that keep them pay). */
function trimFrameVars(frames: Frame[], path: string, notes: Notes): void {
  frames.forEach((f, i) => {
    if (f.vars === undefined) return;
    const vars = trimBag(f.vars, BAG_LIMITS.frameVars, `${path}.frames.${i}.vars`, notes);
    if (vars === f.vars) return;
    // Frames may still be the caller's objects (copy-on-write): copy before changing.
    const { vars: _old, ...rest } = f;
    frames[i] = vars === undefined ? rest : { ...rest, vars: vars as Frame["vars"] };
  });
}

const hasDetail = (f: Frame): boolean => f.pre_context !== undefined || f.post_context !== undefined || f.vars !== undefined;

/**
 * Relay's `slim_frame_data`: when more than `allowance` frames exist, only `allowance` keep their
 * source context and variables — in-app frames first, and of each kind the frames at both ends of
 * the stack (the entry point and the crash side), slimming the middle. Returns how many frames
 * lost detail.
 */
function slimFrames(frames: Frame[], allowance: number): number {
  if (frames.length <= allowance) return 0;
  const app: number[] = [];
  const system: number[] = [];
  frames.forEach((f, i) => {
    (f.in_app === true ? app : system).push(i);
  });
  const systemHalf = Math.floor(Math.max(0, allowance - app.length) / 2);
  const systemDrop = system.slice(systemHalf, system.length - systemHalf);
  const remaining = Math.max(0, frames.length - allowance - systemDrop.length);
  const appHalf = Math.floor(Math.max(0, app.length - remaining) / 2);
  const appDrop = app.slice(appHalf, app.length - appHalf);
  let slimmed = 0;
  for (const i of [...systemDrop, ...appDrop]) {
    const f = frames[i];
    if (!f || !hasDetail(f)) continue;
    // Frames may still be the caller's objects (copy-on-write): copy before removing.
    const { pre_context: _pre, post_context: _post, vars: _vars, ...slim } = f;
    frames[i] = slim;
    slimmed += 1;
  }
  return slimmed;
}

const FRAME_STRING_KEYS = ["filename", "abs_path", "function", "raw_function", "module", "package"] as const;

/** Frame strings and their Relay limits. */
const FRAME_FIELDS: Array<[string, CharLimit]> = [
  ["function", CHAR_LIMITS.symbol],
  ["raw_function", CHAR_LIMITS.symbol],
  ["abs_path", CHAR_LIMITS.path],
  ["package", CHAR_LIMITS.path],
  ["filename", CHAR_LIMITS.shortPath],
  ["module", CHAR_LIMITS.shortPath],
];

function isUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s);
}

/** Relay's frame rules (reference §4.3): abs_path always set when we know a path; filename short. */
function normalizeFrame(raw: Obj, trimmed: { count: number }): Frame {
  // Copy-on-write: most frames from SDKs are already in shape, and a stack has up to 250.
  let copy: Frame | undefined;
  const w = (): Frame => {
    copy ??= { ...raw };
    return copy;
  };
  for (const key of FRAME_STRING_KEYS) {
    const v = raw[key];
    if (v === undefined || typeof v === "string") {
      if (v === "") delete w()[key];
      continue;
    }
    if (v === null) delete w()[key];
    else w()[key] = str(v);
  }
  for (const key of ["lineno", "colno"] as const) {
    const v = raw[key];
    if (v === undefined || (typeof v === "number" && Number.isFinite(v))) continue;
    const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
    if (typeof n === "number" && Number.isFinite(n)) w()[key] = n;
    else delete w()[key];
  }
  const inApp = raw.in_app;
  if (inApp !== undefined && typeof inApp !== "boolean") {
    if (inApp === null) delete w().in_app;
    else w().in_app = inApp === 1 || inApp === "true";
  }
  const cur = (copy ?? raw) as Frame;
  if (cur.abs_path === undefined && cur.filename !== undefined) {
    w().abs_path = cur.filename;
    delete w().filename;
  }
  if ((copy ?? cur).filename === undefined && (copy ?? cur).abs_path !== undefined) {
    const abs = (copy ?? cur).abs_path as string;
    w().filename = urlPath(abs) ?? abs;
  }
  for (const [key, limit] of FRAME_FIELDS) {
    const v = (copy ?? raw)[key];
    if (typeof v !== "string") continue;
    const cut = cutString(v, limit.max, limit.allowance);
    if (cut === undefined) continue;
    w()[key] = cut;
    trimmed.count += 1;
  }
  return (copy ?? raw) as Frame;
}

function urlPath(s: string): string | undefined {
  if (!isUrl(s)) return undefined;
  try {
    const u = new URL(s);
    return u.pathname || "/";
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Breadcrumbs, tags, contexts

function normalizeBreadcrumbs(event: NormalizedEvent, notes: Notes, limits: TrimLimits, drift: number): void {
  const got = valuesOf(event.breadcrumbs, "breadcrumbs", notes);
  if (!got) {
    delete event.breadcrumbs;
    return;
  }
  let raws = got.values.filter(isObj);
  if (raws.length !== got.values.length)
    notes.add("dropped", "breadcrumbs", `${got.values.length - raws.length} breadcrumb(s) were not objects.`);
  if (raws.length > limits.maxBreadcrumbs) {
    notes.add("trimmed", "breadcrumbs", `Kept the newest ${limits.maxBreadcrumbs} of ${raws.length} breadcrumbs.`);
    raws = raws.slice(raws.length - limits.maxBreadcrumbs);
  }
  let cut = 0;
  const values: Breadcrumb[] = raws.map((raw, index) => {
    const crumb: Breadcrumb = { ...raw };
    if (crumb.timestamp !== undefined) {
      const raw = parseTimestamp(crumb.timestamp);
      const t = raw === undefined ? undefined : coerceEpochSeconds(raw);
      if (t === undefined) delete crumb.timestamp;
      else crumb.timestamp = t.secs + drift;
    }
    if (crumb.data !== undefined) {
      const data = trimBag(crumb.data, BAG_LIMITS.breadcrumbData, `breadcrumbs.values.${index}.data`, notes);
      if (data === undefined) delete crumb.data;
      else crumb.data = data as Breadcrumb["data"];
    }
    if (crumb.message !== undefined && typeof crumb.message !== "string") {
      if (crumb.message === null) delete crumb.message;
      else crumb.message = str(crumb.message);
    }
    for (const [key, limit] of CRUMB_FIELDS) {
      const v = crumb[key];
      if (typeof v !== "string") continue;
      const c = cutString(v, limit.max, limit.allowance);
      if (c === undefined) continue;
      crumb[key] = c;
      cut += 1;
    }
    return crumb;
  });
  if (cut > 0) notes.add("trimmed", "breadcrumbs", `Cut over-long messages or categories in ${cut} breadcrumb field(s).`);
  event.breadcrumbs = { ...got.rest, values };
}

const CRUMB_FIELDS: Array<[string, CharLimit]> = [
  ["message", CHAR_LIMITS.summary],
  ["category", CHAR_LIMITS.enumLike],
  ["type", CHAR_LIMITS.enumLike],
];

function normalizeTags(event: NormalizedEvent, notes: Notes, limits: TrimLimits): void {
  const raw: unknown = event.tags;
  if (raw === undefined) return;
  let entries: Array<[unknown, unknown]> = [];
  if (Array.isArray(raw)) {
    for (const item of raw) {
      if (Array.isArray(item) && item.length === 2) entries.push([item[0], item[1]]);
      else notes.add("dropped", "tags", "A tag entry is not a [key, value] pair.");
    }
  } else if (isObj(raw)) {
    entries = Object.entries(raw);
  } else {
    if (raw !== null) notes.add("dropped", "tags", "`tags` is neither an object nor a list of pairs.");
    delete event.tags;
    return;
  }
  const tags: Pairs = [];
  for (const [k, v] of entries) {
    const key = str(k);
    if (key === "" || v === null || v === undefined) {
      notes.add("dropped", `tags.${key}`, "A tag with an empty key or a null value was dropped.");
      continue;
    }
    tags.push([trimString(key, limits.tagKeyChars, "tags", notes), trimString(str(v).trim(), limits.tagValueChars, `tags.${key}`, notes)]);
  }
  event.tags = tags;
}

function normalizeContexts(event: NormalizedEvent, notes: Notes): void {
  const raw: unknown = event.contexts;
  if (raw === undefined) return;
  if (!isObj(raw)) {
    if (raw !== null) notes.add("dropped", "contexts", "`contexts` is not an object.");
    delete event.contexts;
    return;
  }
  const contexts: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!isObj(value)) {
      if (value !== null) notes.add("dropped", `contexts.${key}`, "A context that is not an object was dropped.");
      continue;
    }
    const bag = trimBag(value, BAG_LIMITS.context, `contexts.${key}`, notes);
    if (isObj(bag)) contexts[key] = bag;
  }
  event.contexts = contexts;
}

function normalizeExtra(event: NormalizedEvent, notes: Notes): void {
  const raw: unknown = event.extra;
  if (raw === undefined) return;
  if (!isObj(raw)) {
    if (raw !== null) notes.add("dropped", "extra", "`extra` is not an object.");
    delete event.extra;
    return;
  }
  let extra: Obj | undefined;
  for (const [key, value] of Object.entries(raw)) {
    const item = trimBag(value, BAG_LIMITS.extraItem, `extra.${key}`, notes);
    if (item === value) continue;
    extra ??= { ...raw };
    if (item === undefined) delete extra[key];
    else extra[key] = item;
  }
  const all = trimBag(extra ?? raw, BAG_LIMITS.extra, "extra", notes);
  if (isObj(all)) event.extra = all;
  else delete event.extra;
}

// ---------------------------------------------------------------------------------------------
// User, request, fingerprint

const AUTO_IP = "{{auto}}";

function inferIpSetting(event: NormalizedEvent): unknown {
  const sdk = isObj(event.sdk) ? event.sdk : undefined;
  return isObj(sdk?.settings) ? (sdk.settings as Obj).infer_ip : undefined;
}

/**
 * IP inference (reference §4.4): `{{auto}}` and `sdk.settings.infer_ip: "auto"` take the client
 * address; `infer_ip: "never"` forbids any inference, including the `REMOTE_ADDR` backfill.
 */
function normalizeUser(event: NormalizedEvent, ctx: NormalizeContext, notes: Notes): void {
  const raw: unknown = event.user;
  let user: EventUser | undefined;
  if (isObj(raw)) user = { ...raw };
  else if (raw !== undefined && raw !== null) notes.add("dropped", "user", "`user` is not an object.");
  const inferIp = inferIpSetting(event);

  if (user) {
    for (const key of ["id", "email", "username", "name", "ip_address"] as const) {
      const v = user[key];
      if (v === undefined) continue;
      if (v === null || v === "") delete user[key];
      else if (typeof v !== "string") user[key] = str(v);
    }
    if (user.id !== undefined) user.id = trimString(user.id, CHAR_LIMITS.enumLike, "user.id", notes);
    if (user.username !== undefined) user.username = trimString(user.username, CHAR_LIMITS.enumLike, "user.username", notes);
    if (user.email !== undefined) user.email = trimString(user.email, CHAR_LIMITS.email, "user.email", notes);
    if (user.data !== undefined) {
      const data = trimBag(user.data, BAG_LIMITS.userData, "user.data", notes);
      if (data === undefined) delete user.data;
      else user.data = data;
    }
    if (user.ip_address === AUTO_IP) {
      if (inferIp === "never") {
        delete user.ip_address;
        notes.add("dropped", "user.ip_address", '`{{auto}}` was not resolved: the SDK says infer_ip "never".');
      } else if (ctx.clientIp) {
        user.ip_address = ctx.clientIp;
        notes.add("inferred", "user.ip_address", "`{{auto}}` was replaced by the client's address.");
      } else {
        delete user.ip_address;
        notes.add("dropped", "user.ip_address", "`{{auto}}` could not be resolved: no client IP.");
      }
    }
  }
  // Newer browser SDKs ask for inference with sdk.settings.infer_ip instead of `{{auto}}`.
  if (inferIp === "auto" && ctx.clientIp && !user?.ip_address) {
    user = { ...(user ?? {}), ip_address: ctx.clientIp };
    notes.add("inferred", "user.ip_address", 'Set from the client\'s address (sdk.settings.infer_ip "auto").');
  }
  // Server SDKs put the end user's address in request.env.REMOTE_ADDR (Sentry backfills from it).
  const env = isObj(event.request) && isObj(event.request.env) ? event.request.env : undefined;
  if (inferIp !== "never" && user && !user.ip_address && typeof env?.REMOTE_ADDR === "string" && env.REMOTE_ADDR) {
    user.ip_address = env.REMOTE_ADDR;
    notes.add("inferred", "user.ip_address", "Set from request.env.REMOTE_ADDR.");
  }
  if (user && Object.keys(user).length > 0) event.user = user;
  else delete event.user;
}

function toPairs(v: unknown, splitter: "query" | "cookie" | null): Pairs | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") {
    if (!splitter) return undefined;
    return parseKvString(v, splitter);
  }
  const out: Pairs = [];
  if (Array.isArray(v)) {
    for (const item of v) {
      if (Array.isArray(item) && item.length === 2 && item[1] !== null && item[1] !== undefined) out.push([str(item[0]), str(item[1])]);
    }
    return out;
  }
  if (isObj(v)) {
    for (const [k, value] of Object.entries(v)) {
      // .NET sends header values as lists: one pair per value.
      if (Array.isArray(value)) for (const one of value) out.push([k, str(one)]);
      else if (value !== null && value !== undefined) out.push([k, str(value)]);
    }
    return out;
  }
  return undefined;
}

function parseKvString(s: string, kind: "query" | "cookie"): Pairs {
  const q = kind === "query" ? s.replace(/^\?/, "") : s;
  const sep = kind === "query" ? "&" : ";";
  const out: Pairs = [];
  for (const part of q.split(sep)) {
    const p = part.trim();
    if (!p) continue;
    const eq = p.indexOf("=");
    const k = eq === -1 ? p : p.slice(0, eq);
    const value = eq === -1 ? "" : p.slice(eq + 1);
    out.push(kind === "query" ? [safeDecode(k), safeDecode(value)] : [k, value]);
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

function normalizeRequest(event: NormalizedEvent, ctx: NormalizeContext, notes: Notes): void {
  const raw: unknown = event.request;
  if (raw === undefined) return;
  if (!isObj(raw)) {
    if (raw !== null) notes.add("dropped", "request", "`request` is not an object.");
    delete event.request;
    return;
  }
  const req: EventRequest = { ...raw };
  if (req.url !== undefined && typeof req.url !== "string") req.url = str(req.url);
  if (req.method !== undefined && req.method !== null)
    req.method = trimString(str(req.method), CHAR_LIMITS.enumLike, "request.method", notes);
  if (
    typeof req.url === "string" &&
    req.url.includes("?") &&
    (req.query_string === undefined || req.query_string === null || (req.query_string as unknown) === "")
  ) {
    const at = req.url.indexOf("?");
    req.query_string = parseKvString(req.url.slice(at + 1).split("#")[0] ?? "", "query");
    req.url = req.url.slice(0, at);
  }
  const fields: Array<["headers" | "cookies" | "query_string", "query" | "cookie" | null]> = [
    ["headers", null],
    ["cookies", "cookie"],
    ["query_string", "query"],
  ];
  for (const [key, splitter] of fields) {
    const v: unknown = req[key];
    if (v === undefined) continue;
    const pairs = toPairs(v, splitter);
    if (pairs) req[key] = pairs;
    else {
      if (v !== null) notes.add("dropped", `request.${key}`, `\`request.${key}\` has an unsupported shape.`);
      delete req[key];
    }
  }
  if (typeof req.url === "string") req.url = trimString(req.url, CHAR_LIMITS.path, "request.url", notes);
  if (req.env !== undefined && !isObj(req.env)) delete req.env;
  if (req.env?.REMOTE_ADDR === AUTO_IP) {
    const never = inferIpSetting(event) === "never";
    req.env = { ...req.env };
    if (ctx.clientIp && !never) {
      req.env.REMOTE_ADDR = ctx.clientIp;
      notes.add("inferred", "request.env.REMOTE_ADDR", "`{{auto}}` was replaced by the client's address.");
    } else {
      delete req.env.REMOTE_ADDR;
      notes.add("dropped", "request.env.REMOTE_ADDR", "`{{auto}}` could not be resolved.");
    }
  }
  if (req.data !== undefined) {
    const data = trimBag(req.data, BAG_LIMITS.requestData, "request.data", notes);
    if (data === undefined) delete req.data;
    else req.data = data;
  }
  event.request = req;
}

function normalizeFingerprint(event: NormalizedEvent, notes: Notes): void {
  const raw: unknown = event.fingerprint;
  if (raw === undefined) return;
  if (typeof raw === "string") {
    event.fingerprint = [raw];
    return;
  }
  if (!Array.isArray(raw)) {
    if (raw !== null) notes.add("dropped", "fingerprint", "`fingerprint` is not a list.");
    delete event.fingerprint;
    return;
  }
  // Sentry stringifies numbers (custom-fingerprint-int) and drops nulls.
  event.fingerprint = raw.filter((v) => v !== null && v !== undefined).map((v) => str(v));
}
