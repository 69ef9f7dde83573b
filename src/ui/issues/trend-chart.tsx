"use client";
/**
 * The trend: events per hour (14 days) or per day (90 days). The server-rendered SVG bars
 * show at once in a box of fixed height; uPlot (loaded lazily, its own chunk) takes over for axes
 * and hover values. Nothing moves when it does.
 */
import { useEffect, useRef, useState } from "react";
import { sparkBars } from "../kit/sparkline-path";
import "uplot/dist/uPlot.min.css";
import { countOf } from "../kit/format";

const HEIGHT = 120;
const HOUR = 3_600_000;

export function TrendChart({
  hourly,
  hourlyStart,
  daily,
  dailyStart,
}: {
  hourly: number[];
  hourlyStart: number;
  daily: number[];
  dailyStart: number;
}) {
  const [mode, setMode] = useState<"14d" | "90d">("14d");
  const [hover, setHover] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const counts = mode === "14d" ? hourly : daily;
  const start = mode === "14d" ? hourlyStart : dailyStart;
  const step = mode === "14d" ? HOUR : 24 * HOUR;
  const total = counts.reduce((a, b) => a + b, 0);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: { destroy(): void; setSize(s: { width: number; height: number }): void } | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    (async () => {
      const { default: UPlot } = await import("uplot");
      if (cancelled) return;
      const css = getComputedStyle(document.documentElement);
      const color = (v: string) => css.getPropertyValue(v).trim();
      const xs = counts.map((_, i) => (start + i * step) / 1000);
      const fmt = (ts: number) =>
        new Date(ts * 1000).toLocaleString(
          undefined,
          mode === "14d" ? { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" } : { month: "short", day: "numeric" },
        );
      const axis = {
        stroke: color("--fg-dim"),
        grid: { stroke: color("--border"), width: 1 },
        ticks: { stroke: color("--border"), width: 1 },
        font: "11px system-ui, sans-serif",
      };
      plot = new UPlot(
        {
          width: el.clientWidth,
          height: HEIGHT,
          legend: { show: false },
          cursor: { y: false, points: { show: false } },
          scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
          axes: [
            axis,
            {
              ...axis,
              size: 44,
              space: 20,
              // Whole events only: 1, 2, 5, 10… steps.
              incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6],
              values: (_u, ticks) => ticks.map((t) => (t >= 10_000 ? `${Math.round(t / 1000)}k` : t.toLocaleString("en"))),
            },
          ],
          series: [
            {},
            { fill: `${color("--fg-muted")}99`, stroke: color("--fg-muted"), width: 0, paths: UPlot.paths.bars?.({ size: [0.8, 12] }) },
          ],
          hooks: {
            setCursor: [
              (u) => {
                const i = u.cursor.idx;
                setHover(i == null ? null : `${fmt(xs[i] as number)} — ${countOf(counts[i] ?? 0, "event")}`);
              },
            ],
          },
        },
        [xs, counts],
        el,
      );
      setReady(true);
      observer = new ResizeObserver(() => plot?.setSize({ width: el.clientWidth, height: HEIGHT }));
      observer.observe(el);
    })().catch(() => {
      // Without the chart library the server-drawn bars stay: still a trend, just without axes.
    });
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
      setReady(false);
    };
  }, [counts, start, step, mode]);

  const label = `${countOf(total, "event")} ${mode === "14d" ? "in the last 14 days, per hour" : "in the last 90 days, per day"}`;
  return (
    <section aria-label="Trend" className="rounded-md border border-border px-3 pt-2 pb-1">
      <div className="flex min-h-6 items-center gap-3 text-[12px]">
        <h2 className="section-title">Trend</h2>
        <span className="tabular min-w-0 truncate text-fg-muted" aria-live="polite">
          {hover ?? label}
        </span>
        {/* biome-ignore lint/a11y/useSemanticElements: a two-button toggle group. */}
        <div
          role="group"
          aria-label="Trend period"
          className="ml-auto inline-flex shrink-0 overflow-hidden rounded-md border border-border-strong whitespace-nowrap"
        >
          {(["14d", "90d"] as const).map((m) => (
            <button
              key={m}
              type="button"
              aria-pressed={mode === m}
              className={`h-5 px-2 touch:h-7 ${mode === m ? "bg-muted font-medium" : "text-fg-muted"}`}
              onClick={() => setMode(m)}
            >
              {m === "14d" ? "14 days" : "90 days"}
            </button>
          ))}
        </div>
      </div>
      <div className="relative" style={{ height: HEIGHT }} role="img" aria-label={label}>
        <div ref={box} className="absolute inset-0" />
        {ready ? null : (
          <svg
            className="absolute inset-x-0 top-1 text-fg-muted"
            width="100%"
            height={HEIGHT - 28}
            viewBox={`0 0 1000 ${HEIGHT - 28}`}
            preserveAspectRatio="none"
            aria-hidden="true"
          >
            <path d={sparkBars(counts, 1000, HEIGHT - 28)} fill="currentColor" fillOpacity="0.6" />
          </svg>
        )}
      </div>
    </section>
  );
}
