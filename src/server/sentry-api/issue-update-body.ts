/**
 * Sentry's issue update body as its clients send it, reduced to what Errata's strict parser takes
 * (src/core/issue-state/update-input.ts). Sentry ignores keys it does not use and accepts nulls
 * for absent values; sentry-cli sends `{"status": "muted", "snoozeDuration": null}`. So:
 *
 * - `status: "muted"` is Sentry's old name of `ignored`;
 * - `snoozeDuration`, `snoozeCount`, `snoozeWindow`, `snoozeUserCount`, `snoozeUserWindow` and the
 *   top-level `ignore*` forms become `statusDetails.ignore*` when they carry a value;
 * - nulls are absent values; keys Errata does not act on (isBookmarked, hasSeen, merge flags of
 *   other endpoints, inbox, priority, …) are dropped.
 *
 * Values are not checked here: the strict parser still rejects a wrong type with a field error.
 */

const DETAIL_ALIASES: Record<string, string> = {
  snoozeDuration: "ignoreDuration",
  snoozeUntil: "ignoreUntil",
  snoozeCount: "ignoreCount",
  snoozeWindow: "ignoreWindow",
  snoozeUserCount: "ignoreUserCount",
  snoozeUserWindow: "ignoreUserWindow",
  ignoreDuration: "ignoreDuration",
  ignoreUntil: "ignoreUntil",
  ignoreCount: "ignoreCount",
  ignoreWindow: "ignoreWindow",
  ignoreUserCount: "ignoreUserCount",
  ignoreUserWindow: "ignoreUserWindow",
};

const DETAIL_KEYS = new Set([
  "inRelease",
  "inNextRelease",
  "ignoreDuration",
  "ignoreUntil",
  "ignoreCount",
  "ignoreWindow",
  "ignoreUserCount",
  "ignoreUserWindow",
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The body with Sentry's synonyms mapped and ignorable keys dropped; non-objects pass through. */
export function sentryIssueUpdateBody(body: unknown): unknown {
  if (!isObject(body)) return body;
  const out: Record<string, unknown> = {};
  if (body.status !== undefined && body.status !== null) out.status = body.status === "muted" ? "ignored" : body.status;
  if (body.substatus !== undefined) out.substatus = body.substatus;
  if (body.assignedTo !== undefined) out.assignedTo = body.assignedTo;
  const details: Record<string, unknown> = {};
  if (isObject(body.statusDetails)) {
    for (const [key, value] of Object.entries(body.statusDetails)) {
      // inCommit, inUpcomingRelease, actor…: Sentry features Errata has no counterpart for.
      if (value !== null && value !== undefined && DETAIL_KEYS.has(key)) details[key] = value;
    }
  }
  // Top-level snooze/ignore fields only mean something with status ignored (Sentry drops them
  // otherwise); a contradiction inside statusDetails is left for the parser to reject.
  const ignoring = out.status === "ignored";
  for (const [alias, key] of Object.entries(DETAIL_ALIASES)) {
    const value = body[alias];
    if (ignoring && value !== null && value !== undefined && details[key] === undefined) details[key] = value;
  }
  if (Object.keys(details).length > 0) out.statusDetails = details;
  return out;
}
