/** Extra: a data bag per item, and one for the whole object. */

import { BAG_LIMITS, type NormalizedEvent } from "../event";
import { isObj, type Obj } from "./coerce";
import type { Notes } from "./notes";
import { trimBag } from "./trim";

export function normalizeExtra(event: NormalizedEvent, notes: Notes): void {
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
