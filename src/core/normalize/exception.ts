/** Exceptions: `exception.values` entries, their mechanism data and stack traces. */

import { BAG_LIMITS, CHAR_LIMITS, type ExceptionValue, type NormalizedEvent, type TrimLimits } from "../event";
import { isObj, str, valuesOf } from "./coerce";
import { messageLimit } from "./message";
import type { Notes } from "./notes";
import { normalizeStacktraceField } from "./stacktrace";
import { trimBag, trimString } from "./trim";

export function normalizeExceptions(event: NormalizedEvent, notes: Notes, limits: TrimLimits): void {
  const got = legacySingle(event.exception) ?? valuesOf(event.exception, "exception", notes);
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

/**
 * The oldest SDKs (and hand-written clients) send one exception as the object itself:
 * `"exception": {"type": "…", "value": "…", "stacktrace": …}`. Sentry reads it as a one-entry list.
 */
function legacySingle(v: unknown): { values: unknown[]; rest: Record<string, unknown> } | undefined {
  if (!isObj(v) || "values" in v) return undefined;
  if (typeof v.type !== "string" && typeof v.value !== "string") return undefined;
  return { values: [v], rest: {} };
}
