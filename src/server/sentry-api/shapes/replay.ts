/**
 * Sentry's replay shape (`ReplayDetailsResponse`, src/sentry/replays/post_process.py), as the
 * `sentry` CLI, the MCP server and scripts read `GET /organizations/{org}/replays/` and
 * `…/replays/{id}/`. Errata keeps no warning or info ids (those come from Sentry's issue platform):
 * empty lists and zero counts. `duration` is whole seconds; times are ISO strings.
 */
import type { ReplayRow } from "../../../storage/replays/replays";

const iso = (ms: number) => new Date(ms).toISOString();

function list(json: string): string[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/** "\nkey=value\n" lines → Sentry's `{key: [values]}`. */
export function tagsOfLines(lines: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of lines.split("\n")) {
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const k = line.slice(0, eq);
    const values = out[k] ?? [];
    values.push(line.slice(eq + 1));
    out[k] = values;
  }
  return out;
}

export function sentryReplay(r: ReplayRow, errorIds: string[]) {
  const displayName = r.user_name ?? r.user_email ?? r.user_username ?? r.user_id ?? r.user_ip ?? null;
  return {
    id: r.replay_id,
    project_id: String(r.project_id),
    trace_ids: list(r.trace_ids),
    error_ids: errorIds,
    environment: r.environment,
    tags: tagsOfLines(r.tags),
    user: {
      id: r.user_id,
      username: r.user_username,
      email: r.user_email,
      ip: r.user_ip,
      display_name: displayName,
      geo: {},
    },
    sdk: { name: r.sdk_name, version: r.sdk_version },
    os: { name: r.os_name, version: r.os_version },
    browser: { name: r.browser_name, version: r.browser_version },
    device: { name: r.device_name, brand: r.device_brand, model: r.device_model, family: r.device_family, model_id: null },
    ota_updates: { channel: null, runtime_version: null, update_id: null },
    is_archived: false,
    urls: list(r.urls),
    clicks: [] as unknown[],
    count_dead_clicks: Number(r.count_dead_clicks),
    count_rage_clicks: Number(r.count_rage_clicks),
    count_errors: Number(r.count_errors),
    duration: Math.max(0, Math.round((Number(r.finished_at) - Number(r.started_at)) / 1000)),
    finished_at: iso(Number(r.finished_at)),
    started_at: iso(Number(r.started_at)),
    activity: Number(r.activity),
    count_urls: Number(r.count_urls),
    replay_type: r.replay_type ?? "session",
    count_segments: Number(r.count_segments),
    platform: r.platform,
    releases: r.release ? [r.release] : [],
    dist: r.dist,
    count_warnings: 0,
    count_infos: 0,
    has_viewed: false,
    warning_ids: [] as string[],
    info_ids: [] as string[],
  };
}

export type SentryReplay = ReturnType<typeof sentryReplay>;

/** Only the `field=` names asked for (Sentry answers those), plus `id`; all when none are named. */
export function pickFields(r: SentryReplay, fields: readonly string[]): Partial<SentryReplay> {
  if (fields.length === 0) return r;
  const out: Record<string, unknown> = { id: r.id };
  for (const f of fields) if (f in r) out[f] = (r as Record<string, unknown>)[f];
  return out as Partial<SentryReplay>;
}
