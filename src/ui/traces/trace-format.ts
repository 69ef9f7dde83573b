/** Small formatters shared by the trace screens. */

/** A duration in ms as people read it: `<1 ms`, `84 ms`, `1.25 s`, `12.4 s`, `3.2 min`. */
export function durationMs(n: number): string {
  if (!Number.isFinite(n)) return "—";
  if (n < 1) return "<1 ms";
  if (n < 1000) return `${Math.round(n)} ms`;
  if (n < 120_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
  return `${(n / 60_000).toFixed(1)} min`;
}

/** Span statuses that mean it failed (OpenTelemetry's and Sentry's names). */
export const FAILED_STATUS = /error|internal|unknown|deadline|unavailable|aborted|cancel|denied|unauth|not_found|exhausted|invalid|failed/i;

/**
 * One formatter for every value: `toLocaleString` with options builds a new one per call (73 µs;
 * a trace page draws a hundred samples, each titled with its value).
 */
const GROUPED = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

/** A number for a metric's value: up to 4 significant digits, with its unit. */
export function metricValue(v: number, unit: string | null): string {
  const n = Math.abs(v) >= 1000 || Number.isInteger(v) ? GROUPED.format(v) : v.toPrecision(4);
  return unit ? `${n} ${unit}` : n;
}
