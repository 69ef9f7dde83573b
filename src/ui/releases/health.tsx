/**
 * Release health figures: crash-free shares (never rounded up to 100 %), and sessions per day as
 * inline SVG bars (healthy, errored, abnormal, crashed) with each day's numbers in its tooltip.
 */

import type { SessionDay } from "@/server/releases/screens";
import { formatRate } from "../../core/sessions";
import { countOf } from "../kit/format";

/** 0.99996 → "99.99%", floored (src/core/sessions.ts: alert messages format it the same way). */
export { formatRate };

/** A crash-free share with a thin meter, or an honest dash when there are no sessions. */
export function CrashFree({ rate, compact = false }: { rate: number | null; compact?: boolean }) {
  if (rate === null) return <span className="text-fg-dim">–</span>;
  // The meter shows the crashed share: the interesting part is near 100 %.
  const tone = rate >= 0.99 ? "bg-fg-dim" : rate >= 0.95 ? "bg-warning" : "bg-error";
  return (
    <span className={`inline-flex items-center gap-2 ${compact ? "" : "text-[15px] font-semibold"}`}>
      <span className="tabular">{formatRate(rate)}</span>
      <span className="relative inline-block h-1 w-10 overflow-hidden rounded-full bg-muted" aria-hidden="true">
        <span className={`absolute inset-y-0 left-0 ${tone}`} style={{ width: `${Math.max(2, rate * 100)}%` }} />
      </span>
    </span>
  );
}

const fmt = (n: number) => n.toLocaleString("en-US");

/** Sessions per UTC day over the last `days` days, stacked: crashed on top, in the level colours. */
export function SessionDaysChart({ days, now, span = 30 }: { days: SessionDay[]; now: number; span?: number }) {
  const DAY = 86_400_000;
  const last = Math.floor(now / DAY) * DAY;
  const first = last - (span - 1) * DAY;
  const byDay = new Map(days.map((d) => [d.day, d]));
  const W = 600;
  const H = 90;
  const slot = W / span;
  const bar = Math.max(2, slot * 0.7);
  const max = Math.max(1, ...days.map((d) => d.total));
  const parts = [
    { key: "healthy", value: (d: SessionDay) => d.ok, cls: "fill-border-strong" },
    { key: "errored", value: (d: SessionDay) => d.errored + d.unhandled, cls: "fill-warning" },
    { key: "abnormal", value: (d: SessionDay) => d.abnormal, cls: "fill-debug" },
    { key: "crashed", value: (d: SessionDay) => d.crashed, cls: "fill-error" },
  ];
  return (
    <div>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        className="block h-[90px] w-full"
        role="img"
        aria-label={`Sessions per day, last ${span} days`}
      >
        <line x1="0" x2={W} y1={H - 0.5} y2={H - 0.5} className="stroke-border-strong" vectorEffect="non-scaling-stroke" />
        {Array.from({ length: span }, (_, i) => {
          const day = first + i * DAY;
          const d = byDay.get(day);
          const x = i * slot + (slot - bar) / 2;
          let y = H;
          const tip = d
            ? `${new Date(day).toISOString().slice(0, 10)}: ${countOf(d.total, "session")} · ${fmt(d.crashed)} crashed · ${fmt(d.abnormal)} abnormal · ${fmt(d.errored + d.unhandled)} errored`
            : `${new Date(day).toISOString().slice(0, 10)}: no sessions`;
          return (
            <g key={day}>
              <title>{tip}</title>
              <rect x={i * slot} y={0} width={slot} height={H} fill="transparent" />
              {d
                ? parts.map((p) => {
                    const h = (p.value(d) / max) * H;
                    if (h <= 0) return null;
                    y -= h;
                    return <rect key={p.key} x={x} y={y} width={bar} height={Math.max(h, 0.75)} className={p.cls} />;
                  })
                : null}
            </g>
          );
        })}
      </svg>
      <div className="mt-1 flex flex-wrap justify-between gap-2 text-[11px] text-fg-dim">
        <span className="tabular">{new Date(first).toISOString().slice(5, 10)}</span>
        <span className="flex gap-3">
          <Legend cls="bg-border-strong" label="healthy" />
          <Legend cls="bg-warning" label="errored" />
          <Legend cls="bg-debug" label="abnormal" />
          <Legend cls="bg-error" label="crashed" />
        </span>
        <span className="tabular">today</span>
      </div>
    </div>
  );
}

function Legend({ cls, label }: { cls: string; label: string }) {
  return (
    <span className="inline-flex items-center gap-1">
      <span className={`inline-block size-2 rounded-[2px] ${cls}`} aria-hidden="true" />
      {label}
    </span>
  );
}
