/**
 * The `sentry.interfaces.*` keys of protocol versions before 4, which old SDKs (raven-python,
 * raven-js 1.x, raven-ruby, some PHP clients) still send. Relay reads each as its modern field
 * (`legacy_alias` in its event schema); the modern key wins when both are present.
 */
import type { Obj } from "./coerce";

const ALIASES: ReadonlyArray<readonly [legacy: string, modern: string]> = [
  ["sentry.interfaces.Exception", "exception"],
  // The legacy Message interface is an object; `message` accepts both shapes, logentry only objects.
  ["sentry.interfaces.Message", "logentry"],
  ["sentry.interfaces.Stacktrace", "stacktrace"],
  ["sentry.interfaces.Http", "request"],
  ["sentry.interfaces.User", "user"],
  ["sentry.interfaces.Template", "template"],
  ["sentry.interfaces.Breadcrumbs", "breadcrumbs"],
  ["sentry.interfaces.DebugMeta", "debug_meta"],
];

/** Moves each legacy key to its modern name (unless that is already set) and drops the legacy key. */
export function applyLegacyAliases(src: Obj): void {
  for (const [legacy, modern] of ALIASES) {
    if (!(legacy in src)) continue;
    const value = src[legacy];
    delete src[legacy];
    if (value === undefined || value === null) continue;
    if (src[modern] === undefined || src[modern] === null) src[modern] = value;
  }
}
