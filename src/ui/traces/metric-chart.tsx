/**
 * Charts of `Sentry.metrics` samples, inline SVG drawn on the server: bars per time bucket for the
 * trace list (counters summed, gauges and distributions averaged), and a trace's own samples as
 * marks on its time axis. Colour is the info token in both themes; the numbers are in text beside.
 */
import { metricValue } from "./trace-format";

const W = 600;
const H = 80;

export function MetricBars({
  name,
  type,
  unit,
  buckets,
}: {
  name: string;
  type: string;
  unit: string | null;
  buckets: Array<{ at: number; value: number | null }>;
}) {
  const values = buckets.map((b) => b.value ?? 0);
  const max = Math.max(0, ...values);
  const step = W / Math.max(1, buckets.length);
  const total = values.reduce((a, b) => a + b, 0);
  const seen = buckets.filter((b) => b.value !== null);
  const summary =
    type === "counter"
      ? `${metricValue(total, unit)} in total`
      : seen.length > 0
        ? `average ${metricValue(seen.reduce((a, b) => a + (b.value ?? 0), 0) / seen.length, unit)}, peak ${metricValue(max, unit)}`
        : "no samples";
  return (
    <figure className="rounded-md border border-border px-3 py-2" data-testid="metric-chart">
      <figcaption className="mb-1 flex flex-wrap items-baseline gap-2 text-[12.5px]">
        <span className="font-mono font-medium">{name}</span>
        <span className="text-fg-muted">
          {type}
          {type === "counter" ? " · sum per bucket" : " · average per bucket"} · {summary}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" className="h-20 w-full" role="img" aria-label={`${name}: ${summary}`}>
        <line x1="0" x2={W} y1={H - 0.5} y2={H - 0.5} className="stroke-border" strokeWidth="1" />
        {buckets.map((b, i) => {
          if (b.value === null || max <= 0) return null;
          const h = Math.max(1, (b.value / max) * (H - 4));
          return (
            <rect key={b.at} x={i * step + 1} y={H - h} width={Math.max(1, step - 2)} height={h} className="fill-info" opacity="0.8">
              <title>{`${new Date(b.at).toISOString().slice(0, 16).replace("T", " ")} UTC: ${metricValue(b.value, unit)}`}</title>
            </rect>
          );
        })}
      </svg>
      {buckets.length > 0 ? (
        <div className="mt-0.5 flex justify-between font-mono text-[11px] text-fg-dim">
          <span>{axisTime((buckets[0] as { at: number }).at)}</span>
          <span>{axisTime((buckets.at(-1) as { at: number }).at)}</span>
        </div>
      ) : null}
    </figure>
  );
}

/** A bucket's start for the axis (UTC, as the rest of the page's absolute times). */
function axisTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(5, 16).replace("T", " ")} UTC`;
}

/** One metric's samples within a trace, placed on the trace's own time axis. */
export function MetricMarks({
  samples,
  start,
  end,
  unit,
}: {
  samples: Array<{ at: number; value: number }>;
  start: number;
  end: number;
  unit: string | null;
}) {
  const total = Math.max(1, end - start);
  const max = Math.max(0, ...samples.map((s) => Math.abs(s.value)));
  return (
    <svg viewBox={`0 0 ${W} 24`} preserveAspectRatio="none" className="h-6 w-full" role="img" aria-label={`${samples.length} samples`}>
      <line x1="0" x2={W} y1="23.5" y2="23.5" className="stroke-border" strokeWidth="1" />
      {samples.map((s, i) => {
        const x = Math.min(W - 2, Math.max(0, ((s.at - start) / total) * W));
        const h = max > 0 ? Math.max(2, (Math.abs(s.value) / max) * 22) : 2;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: samples may share a timestamp; the order is fixed.
          <rect key={i} x={x} y={24 - h} width="2" height={h} className="fill-info">
            <title>{metricValue(s.value, unit)}</title>
          </rect>
        );
      })}
    </svg>
  );
}
