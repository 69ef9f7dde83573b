/**
 * Release health (reference §9): session updates and pre-aggregated `sessions` items become hourly
 * counts per project, release and environment. Pure: time and the previous state come in as
 * arguments.
 *
 * Every session sits in exactly one status class, so total = ok + errored + unhandled + abnormal +
 * crashed. A session is counted once (the first update seen for its sid — normally `init: true`;
 * a re-sent init finds the state and is not counted again); later updates only move it to a
 * worse class: ok < errored < unhandled < abnormal < crashed. Terminal updates of healthy
 * sessions (`exited` without errors) leave it `ok`. Updates older than 5 days are ignored.
 */

export type SessionClass = "ok" | "errored" | "unhandled" | "abnormal" | "crashed";

export const SESSION_CLASSES: readonly SessionClass[] = ["ok", "errored", "unhandled", "abnormal", "crashed"];

const RANK: Record<SessionClass, number> = { ok: 0, errored: 1, unhandled: 2, abnormal: 3, crashed: 4 };

const HOUR_MS = 3_600_000;
/** Sentry ignores session data older than this. */
export const SESSION_MAX_AGE_MS = 5 * 24 * HOUR_MS;
/** Clock skew tolerated before a start time in the future is replaced by the receive time. */
const MAX_FUTURE_MS = HOUR_MS;
const MAX_RELEASE = 200;
const MAX_ENVIRONMENT = 64;
const MAX_ID = 128;

export interface SessionUpdate {
  /** normalised session id, null for a one-shot update without one */
  sid: string | null;
  /** distinct id (user/device) as sent; hashed before storing */
  did: string | null;
  init: boolean;
  /** epoch ms */
  started: number;
  status: string;
  errors: number;
  release: string;
  /** "" when none */
  environment: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Counts added to one aggregate bucket (negative values move a session out of a class). */
export interface SessionDelta {
  total: number;
  ok: number;
  errored: number;
  unhandled: number;
  abnormal: number;
  crashed: number;
}

export function emptyDelta(): SessionDelta {
  return { total: 0, ok: 0, errored: 0, unhandled: 0, abnormal: 0, crashed: 0 };
}

export function isSessionClass(v: unknown): v is SessionClass {
  return typeof v === "string" && v in RANK;
}

/**
 * Crash-free share as Sentry defines it (and the release page and the crash-free alert use it):
 * sessions that did not end crashed, 0–1; null without sessions.
 */
export function crashFreeRate(s: { total: number; crashed: number } | null | undefined): number | null {
  if (!s || s.total <= 0) return null;
  return Math.max(0, Math.min(1, (s.total - s.crashed) / s.total));
}

/** 0.99996 → "99.99%" (floored: a release with one crash in 30,000 sessions is not "100%"). */
export function formatRate(rate: number): string {
  if (rate >= 1) return "100%";
  return `${(Math.floor(rate * 10_000) / 100).toFixed(2)}%`;
}

/** A `session` item payload → a checked update, or why it is invalid. */
export function parseSessionUpdate(raw: unknown, receivedAt: number): Parsed<SessionUpdate> {
  if (!isObject(raw)) return { ok: false, reason: "invalid_json" };
  const attrs = parseAttrs(raw.attrs);
  if (!attrs.ok) return attrs;
  const started = parseTime(raw.started, receivedAt);
  if (started === undefined) return { ok: false, reason: "invalid_timestamp" };
  if (started < receivedAt - SESSION_MAX_AGE_MS) return { ok: false, reason: "too_old" };
  const errors = typeof raw.errors === "number" && Number.isFinite(raw.errors) && raw.errors > 0 ? Math.floor(raw.errors) : 0;
  const status = typeof raw.status === "string" ? raw.status.toLowerCase() : "ok";
  return {
    ok: true,
    value: {
      sid: normaliseId(raw.sid),
      did: typeof raw.did === "string" && raw.did.length > 0 ? raw.did.slice(0, 256) : typeof raw.did === "number" ? String(raw.did) : null,
      init: raw.init === true,
      started,
      status,
      errors,
      release: attrs.value.release,
      environment: attrs.value.environment,
    },
  };
}

/** The class an update alone puts its session in. */
export function classifySession(u: Pick<SessionUpdate, "status" | "errors">): SessionClass {
  switch (u.status) {
    case "crashed":
      return "crashed";
    case "abnormal":
      return "abnormal";
    case "unhandled":
      return "unhandled";
    case "errored":
      return "errored";
    default:
      return u.errors > 0 ? "errored" : "ok";
  }
}

/**
 * What an update changes, given the class its session was last counted under (undefined: never
 * seen). Returns the new class and the delta for the session's bucket, or undefined when
 * nothing changes (a repeated or healthier update).
 */
export function applySessionUpdate(
  prev: SessionClass | undefined,
  u: SessionUpdate,
): { next: SessionClass; delta: SessionDelta } | undefined {
  const cls = classifySession(u);
  const delta = emptyDelta();
  if (prev === undefined) {
    delta.total = 1;
    delta[cls] = 1;
    return { next: cls, delta };
  }
  if (RANK[cls] <= RANK[prev]) return undefined;
  delta[prev] = -1;
  delta[cls] = 1;
  return { next: cls, delta };
}

export interface SessionAggregateBucket {
  /** epoch ms (minute-rounded by the SDK) */
  started: number;
  did: string | null;
  delta: SessionDelta;
}

export interface SessionAggregates {
  release: string;
  environment: string;
  buckets: SessionAggregateBucket[];
  /** buckets skipped for being older than 5 days or malformed */
  skipped: number;
}

const MAX_BUCKETS = 100;

/** A `sessions` item (request-mode aggregates) → per-bucket deltas. */
export function parseSessionAggregates(raw: unknown, receivedAt: number): Parsed<SessionAggregates> {
  if (!isObject(raw)) return { ok: false, reason: "invalid_json" };
  const attrs = parseAttrs(raw.attrs);
  if (!attrs.ok) return attrs;
  if (!Array.isArray(raw.aggregates)) return { ok: false, reason: "invalid_session" };
  const buckets: SessionAggregateBucket[] = [];
  let skipped = 0;
  for (const a of raw.aggregates.slice(0, MAX_BUCKETS)) {
    const b = isObject(a) ? parseBucket(a, receivedAt) : undefined;
    if (b) buckets.push(b);
    else skipped += 1;
  }
  skipped += Math.max(0, raw.aggregates.length - MAX_BUCKETS);
  return { ok: true, value: { release: attrs.value.release, environment: attrs.value.environment, buckets, skipped } };
}

function parseBucket(a: Record<string, unknown>, receivedAt: number): SessionAggregateBucket | undefined {
  const started = parseTime(a.started, receivedAt);
  if (started === undefined || started < receivedAt - SESSION_MAX_AGE_MS) return undefined;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.min(Math.floor(v), 1_000_000_000) : 0);
  const delta = emptyDelta();
  delta.ok = n(a.exited);
  delta.errored = n(a.errored);
  delta.unhandled = n(a.unhandled);
  delta.abnormal = n(a.abnormal);
  delta.crashed = n(a.crashed);
  delta.total = delta.ok + delta.errored + delta.unhandled + delta.abnormal + delta.crashed;
  if (delta.total === 0) return undefined;
  return { started, did: typeof a.did === "string" && a.did ? a.did.slice(0, 256) : null, delta };
}

function parseAttrs(value: unknown): Parsed<{ release: string; environment: string }> {
  if (!isObject(value)) return { ok: false, reason: "missing_release" };
  const release = typeof value.release === "string" ? value.release.trim() : "";
  if (!release || release.length > MAX_RELEASE || /[\n\r\t]/.test(release)) return { ok: false, reason: "missing_release" };
  const env = typeof value.environment === "string" ? value.environment.trim().slice(0, MAX_ENVIRONMENT) : "";
  return { ok: true, value: { release, environment: env } };
}

/** RFC 3339 string or unix seconds → epoch ms; a start in the future is clamped to receipt. */
function parseTime(value: unknown, receivedAt: number): number | undefined {
  let ms: number | undefined;
  if (typeof value === "string") {
    const t = Date.parse(value);
    if (Number.isFinite(t)) ms = t;
  } else if (typeof value === "number" && Number.isFinite(value) && value > 0) {
    ms = value * 1000;
  }
  if (ms === undefined) return undefined;
  return ms > receivedAt + MAX_FUTURE_MS ? receivedAt : ms;
}

function normaliseId(value: unknown): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_ID) return null;
  return value.replace(/-/g, "").toLowerCase();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
