/**
 * Fingerprint variables (reference §7.2): an entry is a variable iff the whole string is
 * `{{ name }}`. `{{ default }}` is expanded by the grouping version itself; the others resolve
 * to event values here, with Sentry's placeholders when the value is missing.
 */
import type { NormalizedEvent } from "../event";
import { crashFrame, frameFunction, mainException } from "./describe";

const VARIABLE = /^\{\{\s*(\S+?)\s*\}\}$/;

/** The variable's name (lower-cased) when the entry is a variable, else undefined. */
export function fingerprintVariable(entry: string): string | undefined {
  const m = VARIABLE.exec(entry);
  return m?.[1]?.toLowerCase();
}

export const isDefaultEntry = (entry: string): boolean => fingerprintVariable(entry) === "default";

function tagValue(event: NormalizedEvent, name: string): string | undefined {
  for (const [k, v] of event.tags ?? []) if (k === name) return v;
  return undefined;
}

function exceptionMessage(event: NormalizedEvent): string {
  const exc = mainException(event);
  if (!exc) return "";
  if (exc.type && exc.value) return `${exc.type}: ${exc.value}`;
  return exc.type || exc.value || "";
}

/** Resolves a non-default entry: variables to event values, anything else verbatim. */
export function resolveFingerprintEntry(entry: string, event: NormalizedEvent, opts: { messageFromException?: boolean } = {}): string {
  const name = fingerprintVariable(entry);
  if (name === undefined || name === "default") return entry;
  const exc = mainException(event);
  const frame = crashFrame(event);
  switch (name) {
    case "transaction":
      return event.transaction || "<no-transaction>";
    case "message":
      // v3 (as Sentry): an exception event's message is its "Type: value" line.
      return (
        event.logentry?.formatted || event.logentry?.message || (opts.messageFromException ? exceptionMessage(event) : "") || "<no-message>"
      );
    case "type":
    case "error.type":
      return exc?.type || "<no-type>";
    case "value":
    case "error.value":
      return exc?.value || "<no-value>";
    case "function":
    case "stack.function":
      return frameFunction(frame) || "<no-function>";
    case "path":
    case "stack.abs_path":
      return frame?.abs_path || "<no-abs-path>";
    case "stack.filename":
      return frame?.filename || "<no-filename>";
    case "module":
    case "stack.module":
      return frame?.module || "<no-module>";
    case "package":
    case "stack.package":
      return frame?.package || "<no-package>";
    case "level":
      return event.level || "<no-level>";
    case "logger":
      return event.logger || "<no-logger>";
    default:
      if (name.startsWith("tags.")) {
        // Tag keys are case-sensitive: take the name as written.
        const tag = (VARIABLE.exec(entry)?.[1] ?? name).slice(5);
        return tagValue(event, tag) ?? `<no-value-for-tag-${tag}>`;
      }
      // An unknown variable is kept as written: it still splits consistently.
      return entry;
  }
}
