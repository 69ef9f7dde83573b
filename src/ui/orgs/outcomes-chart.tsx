/**
 * What became of a project's incoming data, per UTC day: stacked bars of accepted, filtered, rate
 * limited and invalid items, server-rendered as inline SVG (no script). Each day's numbers are in
 * its tooltip and the totals in the legend, so nothing is only a colour.
 */

export const CHART_OUTCOMES = ["accepted", "filtered", "rate_limited", "invalid"] as const;
export type ChartOutcome = (typeof CHART_OUTCOMES)[number];

export interface OutcomeDay {
  /** start of the UTC day, epoch ms */
  day: number;
  counts: Record<ChartOutcome, number>;
}

const LABEL: Record<ChartOutcome, string> = {
  accepted: "Accepted",
  filtered: "Filtered",
  rate_limited: "Rate limited",
  invalid: "Invalid",
};
const FILL: Record<ChartOutcome, string> = {
  accepted: "fill-info",
  filtered: "fill-debug",
  rate_limited: "fill-warning",
  invalid: "fill-error",
};
const SWATCH: Record<ChartOutcome, string> = { accepted: "bg-info", filtered: "bg-debug", rate_limited: "bg-warning", invalid: "bg-error" };

const DAY_MS = 86_400_000;
const fmt = (n: number) => n.toLocaleString("en-US");
const dayLabel = (ms: number) => new Date(ms).toISOString().slice(5, 10);

/** Sums hourly counters into `days` UTC days ending with the one holding `now` (missing days are zero). */
export function outcomeDays(rows: Array<{ hour: number; outcome: string; quantity: number }>, now: number, days: number): OutcomeDay[] {
  const last = Math.floor(now / DAY_MS) * DAY_MS;
  const first = last - (days - 1) * DAY_MS;
  const out: OutcomeDay[] = Array.from({ length: days }, (_, i) => ({
    day: first + i * DAY_MS,
    counts: { accepted: 0, filtered: 0, rate_limited: 0, invalid: 0 },
  }));
  for (const r of rows) {
    const i = Math.floor((r.hour - first) / DAY_MS);
    const d = out[i];
    if (!d || !(CHART_OUTCOMES as readonly string[]).includes(r.outcome)) continue;
    d.counts[r.outcome as ChartOutcome] += r.quantity;
  }
  return out;
}

/** A round upper bound for the y axis: 1, 2, 5 × 10^n. */
function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

export function OutcomesChart({ days, caption }: { days: OutcomeDay[]; caption: string }) {
  const totals = Object.fromEntries(CHART_OUTCOMES.map((o) => [o, days.reduce((n, d) => n + d.counts[o], 0)])) as Record<
    ChartOutcome,
    number
  >;
  const peak = Math.max(0, ...days.map((d) => CHART_OUTCOMES.reduce((n, o) => n + d.counts[o], 0)));
  const max = niceMax(peak);
  const W = 600;
  const H = 160;
  const slot = W / Math.max(1, days.length);
  const bar = Math.max(2, slot * 0.7);
  const summary = `${caption}: ${CHART_OUTCOMES.map((o) => `${LABEL[o]} ${fmt(totals[o])}`).join(", ")}.`;
  return (
    <figure className="m-0" data-testid="outcomes-chart">
      <figcaption className="sr-only">{summary}</figcaption>
      <ul className="mb-3 flex flex-wrap gap-x-5 gap-y-1 text-[12.5px]" aria-label="Totals">
        {CHART_OUTCOMES.map((o) => (
          <li key={o} className="flex items-center gap-1.5" data-outcome={o}>
            <span className={`inline-block size-2.5 rounded-[2px] ${SWATCH[o]}`} aria-hidden="true" />
            <span className="text-fg-muted">{LABEL[o]}</span>
            <span className="tabular font-medium">{fmt(totals[o])}</span>
          </li>
        ))}
      </ul>
      <div className="relative">
        <div className="pointer-events-none absolute inset-x-0 top-0 flex justify-between text-[11px] text-fg-dim">
          <span className="tabular bg-bg pr-1">{fmt(max)}</span>
        </div>
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" className="block h-[160px] w-full" role="img" aria-label={summary}>
          <line x1="0" x2={W} y1="0.5" y2="0.5" className="stroke-border" strokeDasharray="3 3" vectorEffect="non-scaling-stroke" />
          <line x1="0" x2={W} y1={H / 2} y2={H / 2} className="stroke-border" strokeDasharray="3 3" vectorEffect="non-scaling-stroke" />
          <line x1="0" x2={W} y1={H - 0.5} y2={H - 0.5} className="stroke-border-strong" vectorEffect="non-scaling-stroke" />
          {days.map((d, i) => {
            let y = H;
            const x = i * slot + (slot - bar) / 2;
            const tip = `${new Date(d.day).toISOString().slice(0, 10)}: ${CHART_OUTCOMES.map((o) => `${LABEL[o]} ${fmt(d.counts[o])}`).join(" · ")}`;
            return (
              <g key={d.day}>
                <title>{tip}</title>
                {/* the hover target is the whole slot, so thin or empty days still have a tooltip */}
                <rect x={i * slot} y={0} width={slot} height={H} fill="transparent" />
                {CHART_OUTCOMES.map((o) => {
                  const h = (d.counts[o] / max) * H;
                  if (h <= 0) return null;
                  y -= h;
                  return <rect key={o} x={x} y={y} width={bar} height={Math.max(h, 0.75)} className={FILL[o]} />;
                })}
              </g>
            );
          })}
        </svg>
        <div className="mt-1 flex justify-between text-[11px] text-fg-dim tabular" aria-hidden="true">
          <span>{days[0] ? dayLabel(days[0].day) : ""}</span>
          <span>{days[Math.floor(days.length / 2)] ? dayLabel((days[Math.floor(days.length / 2)] as OutcomeDay).day) : ""}</span>
          <span>{days.at(-1) ? `${dayLabel((days.at(-1) as OutcomeDay).day)} (today, UTC)` : ""}</span>
        </div>
      </div>
    </figure>
  );
}
