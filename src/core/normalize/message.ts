/** Message: `logentry` (object or string) and the legacy `message` become one `logentry`. */

import { CHAR_LIMITS, type CharLimit, type LogEntry, type NormalizedEvent, type TrimLimits } from "../event";
import { isObj, str } from "./coerce";
import type { Notes } from "./notes";
import { trimString } from "./trim";

export function normalizeMessage(event: NormalizedEvent, notes: Notes, limits: TrimLimits): void {
  let entry: LogEntry | undefined;
  const rawEntry: unknown = event.logentry;
  if (typeof rawEntry === "string") entry = { formatted: rawEntry };
  else if (isObj(rawEntry)) entry = { ...rawEntry };
  else if (rawEntry !== undefined && rawEntry !== null) notes.add("dropped", "logentry", "`logentry` is neither an object nor a string.");

  // Legacy `message`: a string (JS captureMessage, Go) or the old `sentry.interfaces.Message`.
  const msg: unknown = event.message;
  if (msg !== undefined) {
    if (typeof msg === "string") {
      if (msg !== "") {
        if (!entry) entry = { formatted: msg };
        else if (entry.formatted === undefined) entry.formatted = msg;
        else if (entry.formatted !== msg) event.extra = { ...(isObj(event.extra) ? event.extra : {}), message: msg };
      }
    } else if (isObj(msg)) {
      if (!entry) entry = { ...msg };
    } else if (msg !== null) {
      notes.add("dropped", "message", "`message` is neither a string nor an object.");
    }
    delete event.message;
  }
  if (!entry) {
    delete event.logentry;
    return;
  }
  for (const key of ["formatted", "message"] as const) {
    const v = entry[key];
    if (v === undefined || v === null) {
      delete entry[key];
      continue;
    }
    entry[key] = trimString(typeof v === "string" ? v : str(v), messageLimit(limits), `logentry.${key}`, notes);
  }
  if (entry.formatted === undefined && typeof entry.message === "string") {
    entry.formatted = trimString(formatTemplate(entry.message, entry.params), messageLimit(limits), "logentry.formatted", notes);
  }
  if (entry.formatted === undefined && entry.message === undefined) {
    delete event.logentry;
    return;
  }
  event.logentry = entry;
}

export const messageLimit = (limits: TrimLimits): CharLimit => ({ max: limits.messageChars, allowance: CHAR_LIMITS.message.allowance });

/** Interpolates printf-style templates (`%s`, `%(name)s`) the way Python's logging would. */
function formatTemplate(template: string, params: unknown): string {
  if (Array.isArray(params)) {
    let i = 0;
    return template.replace(/%[sdrif]/g, (m) => (i < params.length ? str(params[i++]) : m));
  }
  if (isObj(params)) {
    return template.replace(/%\((\w+)\)[sdrif]/g, (m, name: string) => (name in params ? str(params[name]) : m));
  }
  return template;
}
