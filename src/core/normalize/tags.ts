/** Tags: an object or a list of pairs becomes a list of string pairs. */

import type { NormalizedEvent, Pairs, TrimLimits } from "../event";
import { isObj, str } from "./coerce";
import type { Notes } from "./notes";
import { trimString } from "./trim";

export function normalizeTags(event: NormalizedEvent, notes: Notes, limits: TrimLimits): void {
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
