/**
 * Grouping v1 — Bugsink's simple key (reference §7.4), a first version to ship:
 *   fingerprint (with `{{ default }}` → the default key) › main exception `type: first line of
 *   value` › message template (first line) › "<no message>".
 * No stack trace contributes yet; the Sentry-grade algorithm (§7.1) becomes v2.
 */
import type { NormalizedEvent } from "../../event";
import { firstLine, mainException } from "../describe";
import type { GroupingKey } from "../types";

export const VERSION = "v1";
const SEP = " ⋄ ";
const DEFAULT_VAR = /^\{\{\s*default\s*\}\}$/;

function defaultKey(event: NormalizedEvent): Omit<GroupingKey, "key"> {
  const exc = mainException(event);
  if (exc) {
    // The raw type, even for synthetic exceptions: keying on the crash function (as Bugsink does)
    // split same-issue minidumps of the corpus more often than it separated different ones.
    const type = exc.type ?? "Error";
    const value = firstLine(exc.value ?? "");
    return { source: "exception", components: [value ? `${type}: ${value}` : type] };
  }
  const template = event.logentry?.message ?? event.logentry?.formatted;
  const line = typeof template === "string" ? firstLine(template) : "";
  if (line) return { source: "message", components: [line] };
  return { source: "fallback", components: ["<no message>"] };
}

export function groupingKeyV1(event: NormalizedEvent): GroupingKey {
  const def = defaultKey(event);
  const fingerprint = event.fingerprint;
  if (!fingerprint || fingerprint.length === 0) return { ...def, key: def.components.join(SEP) };
  const usesDefault = fingerprint.some((f) => DEFAULT_VAR.test(f));
  const components = fingerprint.flatMap((f) => (DEFAULT_VAR.test(f) ? def.components : [f]));
  // `["{{ default }}"]` alone is just the default algorithm.
  const source = usesDefault ? (fingerprint.length === 1 ? def.source : `${def.source}+fingerprint`) : "fingerprint";
  return { source, components, key: components.join(SEP) };
}
