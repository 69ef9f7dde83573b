/** Contexts: an object of objects, each one a data bag. */

import { BAG_LIMITS, type NormalizedEvent } from "../event";
import { isObj } from "./coerce";
import type { Notes } from "./notes";
import { trimBag } from "./trim";

export function normalizeContexts(event: NormalizedEvent, notes: Notes): void {
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
