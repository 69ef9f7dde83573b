/**
 * Sentry's REST shapes for monitors and check-ins (what `sentry-cli monitors list` and provisioning
 * scripts read): camelCase, ISO dates, `status` "active" | "disabled", config in snake_case.
 */
import type { MonitorCheckIn, MonitorSummary } from "../../monitors/cron";

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function monitorShape(m: MonitorSummary): Record<string, unknown> {
  const c = m.config;
  return {
    id: String(m.id),
    slug: m.slug,
    name: m.name,
    status: m.status === "paused" ? "disabled" : "active",
    isMuted: m.muted,
    // Sentry's required fields Errata has no counterpart for: no owners on monitors, and a monitor
    // is never half-created by a check-in's upsert.
    isUpserting: false,
    owner: null,
    type: "cron_job",
    dateCreated: iso(m.createdAt),
    project: { slug: m.projectSlug },
    config: {
      schedule_type: c.schedule.type,
      schedule: c.schedule.type === "crontab" ? c.schedule.value : [c.schedule.value, c.schedule.unit],
      checkin_margin: c.checkinMargin,
      max_runtime: c.maxRuntime,
      timezone: c.timezone,
      failure_issue_threshold: c.failureIssueThreshold,
      recovery_threshold: c.recoveryThreshold,
    },
    environments: m.environments.map((e) => ({
      name: e.name,
      status: e.status === "active" ? "active" : e.status,
      isMuted: m.muted,
      lastCheckIn: iso(e.lastCheckIn),
      nextCheckIn: iso(e.nextCheckIn),
      nextCheckInLatest: iso(e.nextCheckInLatest),
    })),
  };
}

export function checkInShape(c: MonitorCheckIn): Record<string, unknown> {
  return {
    id: c.checkInId.startsWith("missed-") ? String(c.id) : c.checkInId,
    status: c.status,
    duration: c.durationMs,
    environment: c.environment,
    dateCreated: iso(c.createdAt),
    expectedTime: iso(c.expectedAt),
  };
}
