/** Scalars: the event id, the level and the top-level string fields. */

import { CHAR_LIMITS, type CharLimit, type Level } from "../event";
import { type Obj, str } from "./coerce";
import type { Notes } from "./notes";
import { trimString } from "./trim";

export function normalizeId(payloadId: unknown, ctxId: string | undefined, notes: Notes): string {
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

export function normalizeLevel(v: unknown, notes: Notes): Level {
  if (v === undefined || v === null || v === "") return "error";
  const level = typeof v === "string" ? LEVELS[v.toLowerCase()] : undefined;
  if (level) return level;
  notes.add("invalid_level", "level", `Unknown level ${JSON.stringify(str(v).slice(0, 50))}; "error" is used.`);
  return "error";
}

/** Top-level strings and their Relay limits (reference §6.2). */
export const STRING_FIELDS: Array<[string, CharLimit]> = [
  ["logger", CHAR_LIMITS.logger],
  ["transaction", CHAR_LIMITS.culprit],
  ["server_name", CHAR_LIMITS.symbol],
  ["release", CHAR_LIMITS.tagValue],
  ["dist", CHAR_LIMITS.dist],
  ["environment", CHAR_LIMITS.environment],
  ["culprit", CHAR_LIMITS.culprit],
];

export function normalizeOptionalString(event: Obj, key: string, limit: CharLimit, notes: Notes): void {
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
