/** Event depth: the last pass, over everything the other modules leave as the SDK sent it. */

import { limitDepth, MAX_EVENT_DEPTH } from "../bounded-json";
import type { NormalizedEvent } from "../event";
import type { Obj } from "./coerce";
import type { Notes } from "./notes";

/**
 * Last pass: whatever else the SDK sent (unknown fields, `sdk`, `debug_meta`, …) is kept, but no
 * deeper than MAX_EVENT_DEPTH: storing, scrubbing, grouping and rendering all recurse.
 */
export function normalizeUnknownDepth(event: NormalizedEvent, notes: Notes): void {
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
