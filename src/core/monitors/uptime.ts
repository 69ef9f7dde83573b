/**
 * Uptime monitors (HTTP checks), pure: the configuration a user gives (strictly validated), what
 * one response means (up or down, and why), when a monitor changes state (down after N failures in
 * a row, up after M successes) and when its next check is due — spread over the interval by the
 * monitor's id so that 500 monitors at 60 s do not all fire in the same second.
 */
export interface UptimeConfig {
  url: string;
  method: "GET" | "HEAD" | "POST";
  /** seconds, ≥ 30 */
  intervalS: number;
  /** milliseconds */
  timeoutMs: number;
  /** inclusive range of statuses that count as up */
  statusMin: number;
  statusMax: number;
  /** when set, the body must contain it */
  keyword: string | null;
  headers: Record<string, string>;
  /** down after this many failures in a row */
  failureThreshold: number;
  /** up again after this many successes in a row */
  recoveryThreshold: number;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

const METHODS = ["GET", "HEAD", "POST"] as const;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

function int(v: unknown, def: number, min: number, max: number): number | undefined {
  if (v === undefined || v === null) return def;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) return undefined;
  return v;
}

/**
 * The field names the REST API takes and answers: Sentry's uptime monitor names where it has them
 * (`intervalSeconds`, `timeoutMs`), the same camelCase for the rest. The snake_case names of
 * earlier versions are still read.
 */
const ALIASES = {
  intervalSeconds: "interval_seconds",
  timeoutMs: "timeout_ms",
  statusMin: "status_min",
  statusMax: "status_max",
  failureThreshold: "failure_threshold",
  recoveryThreshold: "recovery_threshold",
} as const;

/** A field's value under its name or its old snake_case alias. */
function field(c: Record<string, unknown>, name: keyof typeof ALIASES): unknown {
  return c[name] !== undefined ? c[name] : c[ALIASES[name]];
}

export function parseUptimeConfig(input: unknown): Parsed<UptimeConfig> {
  if (typeof input !== "object" || input === null) return { ok: false, field: "config", message: "must be an object" };
  const c = input as Record<string, unknown>;
  let url: URL;
  try {
    url = new URL(String(c.url ?? ""));
  } catch {
    return { ok: false, field: "url", message: "must be an absolute http(s) URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, field: "url", message: "must be http or https" };
  const method = (typeof c.method === "string" ? c.method.toUpperCase() : "GET") as UptimeConfig["method"];
  if (!METHODS.includes(method)) return { ok: false, field: "method", message: "must be GET, HEAD or POST" };
  const intervalS = int(field(c, "intervalSeconds"), 60, 30, 86_400);
  if (intervalS === undefined) return { ok: false, field: "intervalSeconds", message: "must be an integer from 30 to 86400" };
  const timeoutMs = int(field(c, "timeoutMs"), 10_000, 100, 60_000);
  if (timeoutMs === undefined) return { ok: false, field: "timeoutMs", message: "must be an integer from 100 to 60000" };
  const statusMin = int(field(c, "statusMin"), 200, 100, 599);
  const statusMax = int(field(c, "statusMax"), 399, 100, 599);
  if (statusMin === undefined || statusMax === undefined || statusMin > statusMax)
    return { ok: false, field: "statusMin", message: "expected status range must be 100–599, min ≤ max" };
  const keyword = typeof c.keyword === "string" && c.keyword.length > 0 ? c.keyword.slice(0, 200) : null;
  const headers: Record<string, string> = {};
  if (c.headers !== undefined && c.headers !== null) {
    if (typeof c.headers !== "object" || Array.isArray(c.headers))
      return { ok: false, field: "headers", message: "must be an object of strings" };
    for (const [k, v] of Object.entries(c.headers as Record<string, unknown>)) {
      if (!HEADER_NAME.test(k) || typeof v !== "string" || /[\r\n]/.test(v))
        return { ok: false, field: "headers", message: `invalid header ${k}` };
      headers[k] = v.slice(0, 1000);
    }
  }
  const failureThreshold = int(field(c, "failureThreshold"), 1, 1, 100);
  const recoveryThreshold = int(field(c, "recoveryThreshold"), 1, 1, 100);
  if (failureThreshold === undefined) return { ok: false, field: "failureThreshold", message: "must be an integer from 1 to 100" };
  if (recoveryThreshold === undefined) return { ok: false, field: "recoveryThreshold", message: "must be an integer from 1 to 100" };
  return {
    ok: true,
    value: {
      url: url.toString(),
      method,
      intervalS,
      timeoutMs,
      statusMin,
      statusMax,
      keyword,
      headers,
      failureThreshold,
      recoveryThreshold,
    },
  };
}

export interface CheckOutcome {
  up: boolean;
  /** null when up; otherwise why it is down */
  reason: string | null;
}

/** What a response (or a failure to get one: `error`) means for the monitor. */
export function judgeResponse(cfg: UptimeConfig, r: { status: number; body: string } | { error: string }): CheckOutcome {
  if ("error" in r) return { up: false, reason: r.error };
  if (r.status < cfg.statusMin || r.status > cfg.statusMax)
    return { up: false, reason: `status ${r.status} outside ${cfg.statusMin}–${cfg.statusMax}` };
  if (cfg.keyword && !r.body.includes(cfg.keyword)) return { up: false, reason: `keyword "${cfg.keyword}" not found` };
  return { up: true, reason: null };
}

export type UptimeState = "pending" | "up" | "down";

export interface UptimeStreak {
  state: UptimeState;
  failures: number;
  successes: number;
}

/** The next state after one check; `changed` says whether it went down or came back up. */
export function nextUptimeState(cfg: UptimeConfig, s: UptimeStreak, up: boolean): UptimeStreak & { changed: "down" | "up" | null } {
  const failures = up ? 0 : s.failures + 1;
  const successes = up ? s.successes + 1 : 0;
  if (!up && s.state !== "down" && failures >= cfg.failureThreshold) return { state: "down", failures, successes, changed: "down" };
  if (up && s.state === "down" && successes >= cfg.recoveryThreshold) return { state: "up", failures, successes, changed: "up" };
  if (up && s.state === "pending") return { state: "up", failures, successes, changed: null };
  return { state: s.state, failures, successes, changed: null };
}

/**
 * The next time a monitor is checked after `now`: on its own phase of the interval (the id spread
 * over the interval), so checks of many monitors are spread evenly instead of bunching.
 */
export function nextCheckAt(id: number, intervalS: number, now: number): number {
  const period = intervalS * 1000;
  // Knuth's multiplicative hash: neighbouring ids land far apart in the interval.
  const phase = ((id * 2654435761) >>> 0) % period;
  const base = Math.floor((now - phase) / period) * period + phase;
  return base + period;
}

/** Availability (0–1) of a list of results; null without any. */
export function availability(results: Array<{ up: boolean }>): number | null {
  if (results.length === 0) return null;
  return results.filter((r) => r.up).length / results.length;
}

/**
 * Request headers typed one per line as `Name: value` (the create form); blank lines are skipped.
 * Names and values are checked by `parseUptimeConfig`; this only splits and names the bad line.
 */
export function parseHeaderLines(text: string): Parsed<Record<string, string>> {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!HEADER_NAME.test(name)) return { ok: false, field: "headers", message: `line ${i + 1}: expected "Name: value"` };
    headers[name] = line.slice(colon + 1).trim();
  }
  return { ok: true, value: headers };
}

/** One slot of the response-time chart: a single check, or the checks of a stretch of time. */
export interface LatencySlot {
  /** epoch ms: the check's time, or the start and end of the stretch */
  from: number;
  to: number;
  checks: number;
  failures: number;
  /** mean and worst latency of the checks with one; null when none had */
  avgMs: number | null;
  maxMs: number | null;
}

/**
 * Check results (any order) as at most `slots` chart slots, oldest first: one per check while they
 * fit, otherwise equal stretches of time from the oldest to the newest check (a stretch without
 * checks, e.g. while paused, stays empty rather than being closed up).
 */
export function latencySlots(results: Array<{ checkedAt: number; up: boolean; latencyMs: number | null }>, slots = 120): LatencySlot[] {
  const sorted = [...results].sort((a, b) => a.checkedAt - b.checkedAt);
  if (sorted.length === 0) return [];
  const one = (r: (typeof sorted)[number]): LatencySlot => ({
    from: r.checkedAt,
    to: r.checkedAt,
    checks: 1,
    failures: r.up ? 0 : 1,
    avgMs: r.latencyMs,
    maxMs: r.latencyMs,
  });
  if (sorted.length <= slots) return sorted.map(one);
  const first = sorted[0].checkedAt;
  const width = (sorted[sorted.length - 1].checkedAt - first + 1) / slots;
  const out = Array.from({ length: slots }, (_, i) => ({
    from: Math.round(first + i * width),
    to: Math.round(first + (i + 1) * width) - 1,
    checks: 0,
    failures: 0,
    sum: 0,
    timed: 0,
    maxMs: null as number | null,
  }));
  for (const r of sorted) {
    const s = out[Math.min(slots - 1, Math.floor((r.checkedAt - first) / width))];
    s.checks++;
    if (!r.up) s.failures++;
    if (r.latencyMs !== null) {
      s.sum += r.latencyMs;
      s.timed++;
      s.maxMs = Math.max(s.maxMs ?? 0, r.latencyMs);
    }
  }
  return out.map(({ sum, timed, ...s }) => ({ ...s, avgMs: timed ? Math.round(sum / timed) : null }));
}

/**
 * The User-Agent of every check unless the monitor sets its own: names the product, its version
 * and where it runs, so the checked service can recognise (and allow) it, e.g.
 * `Errata-Uptime/0.1.0 (+https://errors.example.com)`.
 */
export function uptimeUserAgent(version: string, publicUrl: string): string {
  return `Errata-Uptime/${version} (+${publicUrl.replace(/\/+$/, "")})`;
}

/** The request headers of a check: the monitor's own, with our User-Agent when it sets none. */
export function uptimeHeaders(cfg: Pick<UptimeConfig, "headers">, userAgent: string): Record<string, string> {
  const own = Object.keys(cfg.headers).some((k) => k.toLowerCase() === "user-agent");
  return own ? cfg.headers : { "user-agent": userAgent, ...cfg.headers };
}

/** A check's configuration as the REST API answers it: the names it takes (Sentry's `intervalSeconds`). */
export type UptimeConfigView = Omit<UptimeConfig, "intervalS"> & { intervalSeconds: number };

export function uptimeConfigView(c: UptimeConfig): UptimeConfigView {
  const { intervalS, ...rest } = c;
  return { ...rest, intervalSeconds: intervalS };
}
