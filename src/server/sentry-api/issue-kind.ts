/**
 * Sentry's issue classification from Errata's issue `type` and level. Errata stores the event type
 * (`error`, `default`, `csp`…) or, for issues it raises itself, Sentry's issue type
 * (`monitor_check_in_failure`, `uptime_domain_failure`); Sentry answers both an `issueType` (the
 * grouptype slug) and an `issueCategory` (its family).
 */

const OWN_TYPES: Record<string, { issueType: string; issueCategory: string }> = {
  monitor_check_in_failure: { issueType: "monitor_check_in_failure", issueCategory: "cron" },
  uptime_domain_failure: { issueType: "uptime_domain_failure", issueCategory: "uptime" },
};

/** An event-made issue is Sentry's `error` grouptype (category `error`), whatever the event type. */
export function sentryIssueKind(type: string): { issueType: string; issueCategory: string } {
  return OWN_TYPES[type] ?? { issueType: "error", issueCategory: "error" };
}

/**
 * The priority Sentry gives a new issue when no severity model scores it (event_manager's
 * `_get_priority_for_group` with no score): fatal and error high, warning medium, info and debug low.
 * Errata keeps no priority of its own and nobody can change it, so it is derived from the level.
 */
export function sentryPriority(level: string): "high" | "medium" | "low" {
  if (level === "fatal" || level === "error") return "high";
  if (level === "info" || level === "debug") return "low";
  return "medium";
}
