/**
 * Lenient normalisation of an SDK event (reference §4, SPEC §5). Pure: the receive time, client IP
 * and event id are arguments. It never throws on odd input — every shape seen in the corpus is
 * coerced, unknown fields are kept, and anything lost or replaced is recorded in `errata.notes`.
 *
 * This file is the order of the passes; each concern is a module in `./normalize/` (the way Relay's
 * `relay-event-normalization` splits it), readable and testable alone.
 */

import { DEFAULT_TRIM_LIMITS, type NormalizeContext, type NormalizedEvent, type TrimLimits } from "./event";
import { normalizeBreadcrumbs } from "./normalize/breadcrumbs";
import { isObj, type Obj } from "./normalize/coerce";
import { normalizeContexts } from "./normalize/contexts";
import { normalizeUnknownDepth } from "./normalize/depth";
import { normalizeExceptions } from "./normalize/exception";
import { normalizeExtra } from "./normalize/extra";
import { normalizeFingerprint } from "./normalize/fingerprint";
import { applyLegacyAliases } from "./normalize/legacy-aliases";
import { normalizeMessage } from "./normalize/message";
import { Notes } from "./normalize/notes";
import { normalizeRequest } from "./normalize/request";
import { normalizeId, normalizeLevel, normalizeOptionalString, STRING_FIELDS } from "./normalize/scalars";
import { normalizeStacktraceField } from "./normalize/stacktrace";
import { normalizeTags } from "./normalize/tags";
import { normalizeThreads } from "./normalize/threads";
import { clockDrift, normalizeTimestamp } from "./normalize/timestamps";
import { normalizeUser } from "./normalize/user";

export { coerceEpochSeconds, parseTimestamp } from "./normalize/timestamps";

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
  applyLegacyAliases(src);

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
