/** Breadcrumbs: the newest ones up to the limit, their timestamps, data bags and strings. */

import { BAG_LIMITS, type Breadcrumb, CHAR_LIMITS, type CharLimit, type NormalizedEvent, type TrimLimits } from "../event";
import { isObj, str, valuesOf } from "./coerce";
import type { Notes } from "./notes";
import { coerceEpochSeconds, parseTimestamp } from "./timestamps";
import { cutString, trimBag } from "./trim";

export function normalizeBreadcrumbs(event: NormalizedEvent, notes: Notes, limits: TrimLimits, drift: number): void {
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
