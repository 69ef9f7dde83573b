/**
 * Sentry's HTTP check-in endpoint (`/api/{project_id}/cron/{monitor_slug}/{sentry_key}/`, what
 * curl jobs and shell crons call): GET with query parameters or POST with a JSON body, both
 * naming `status`, optionally `check_in_id`, `environment`, `duration` (seconds), `release` and,
 * in the body, `monitor_config` for an upsert. Turned into the `check_in` item payload the SDKs
 * send, so the digest handles both alike. Without a check_in_id it is Sentry's zero id: an ok or
 * error closes the job's open in_progress check-in (core/monitors/checkin.ts).
 */
import { ZERO_CHECK_IN_ID } from "../../core/monitors/checkin";

const TEXT_FIELDS = ["status", "check_in_id", "environment", "release"] as const;

export function cronCheckInPayload(slug: string, query: URLSearchParams, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body, monitor_slug: slug };
  for (const f of TEXT_FIELDS) {
    const v = query.get(f);
    if (v !== null && out[f] === undefined) out[f] = v;
  }
  const duration = query.get("duration");
  if (duration !== null && out.duration === undefined) out.duration = Number(duration);
  if (out.check_in_id === undefined || out.check_in_id === "") out.check_in_id = ZERO_CHECK_IN_ID;
  return out;
}
