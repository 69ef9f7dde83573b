/** Timestamps: parsing, finer units scaled to seconds, clock-drift correction and the accepted range. */

import { CLOCK_DRIFT_THRESHOLD_SECS, MAX_SECS_IN_FUTURE, MAX_SECS_IN_PAST, type NormalizeContext } from "../event";
import type { Notes } from "./notes";

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
export function clockDrift(ctx: NormalizeContext, notes: Notes): number {
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

export function normalizeTimestamp(v: unknown, receivedSecs: number, drift: number, notes: Notes): number {
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
