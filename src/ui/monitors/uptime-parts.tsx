/**
 * Pieces of the uptime screens, rendered on the server: the state badge, the list of checks, the
 * response-time chart (inline SVG; failed checks in red, on the bars and on a rail under them, so a
 * fast failure is as visible as a slow one) and the table of recent results. Colours follow UI.md:
 * only failures are saturated.
 */

import Link from "next/link";
import type { ReactNode } from "react";
import type { LatencySlot, UptimeState } from "@/core/monitors/uptime";
import type { UptimeDetail, UptimeSummary } from "@/server/monitors/uptime";
import { absoluteTime, countOf } from "../kit/format";
import { ScrollRegion } from "../kit/scroll-region";
import { TimeAgo } from "../kit/time-ago";
import { formatDuration, StatusDot } from "./parts";

export const UPTIME_LABEL: Record<UptimeState, string> = { up: "Up", down: "Down", pending: "Pending" };
const DOT: Record<UptimeState, string> = { up: "ok", down: "error", pending: "active" };

/** "99.93 %", "100 %", "0 %", "–" without results. */
export const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(v === 1 || v === 0 ? 0 : 2)} %`);

export function UptimeStateBadge({ state, paused }: { state: UptimeState; paused?: boolean }) {
  return (
    <span className={`badge gap-1.5 ${state === "down" ? "border-error text-danger" : ""}`} data-testid="uptime-state">
      <StatusDot status={DOT[state]} />
      {UPTIME_LABEL[state]}
      {paused ? " · paused" : ""}
    </span>
  );
}

export const uptimePath = (org: string, id: number) => `/${encodeURIComponent(org)}/monitors/uptime/${id}`;

/** HTTP checks: state, last response, availability; each row links to its page. */
export function UptimeTable({ monitors, org, now }: { monitors: UptimeSummary[]; org: string; now: number }) {
  return (
    <ScrollRegion label="Uptime checks">
      <table className="w-full border-collapse text-[13px]" data-testid="uptime-list">
        <thead className="text-left text-[12px] text-fg-muted">
          <tr className="border-b border-border">
            <th className="py-1.5 pr-3 font-medium">Check</th>
            <th className="py-1.5 pr-3 font-medium">URL</th>
            <th className="py-1.5 pr-3 font-medium">Last response</th>
            <th className="py-1.5 pr-3 text-right font-medium">24 h</th>
            <th className="py-1.5 pr-3 text-right font-medium">7 d</th>
            <th className="py-1.5 text-right font-medium">30 d</th>
          </tr>
        </thead>
        <tbody>
          {monitors.map((m) => (
            <tr key={m.id} className="h-9 border-b border-border hover:bg-hover">
              <td className="py-1 pr-3">
                <span className="flex items-center gap-2">
                  <StatusDot status={DOT[m.state]} />
                  <Link href={uptimePath(org, m.id)} className="font-semibold hover:underline">
                    {m.name}
                  </Link>
                  <span className="font-mono text-[11px] text-fg-dim">{m.projectSlug}</span>
                  <span className={`text-[12px] ${m.state === "down" ? "text-danger" : "text-fg-muted"}`}>{UPTIME_LABEL[m.state]}</span>
                </span>
              </td>
              <td className="max-w-[320px] truncate py-1 pr-3 font-mono text-[12px]" title={m.config.url}>
                <span className="text-fg-dim">{m.config.method}</span> {m.config.url}
              </td>
              <td className="py-1 pr-3 tabular text-fg-muted">
                {m.last ? (
                  <>
                    <span className={m.last.up ? "" : "text-danger"}>{m.last.status ?? m.last.error}</span> ·{" "}
                    {m.last.latencyMs !== null ? formatDuration(m.last.latencyMs) : "–"} · <TimeAgo ms={m.last.checkedAt} now={now} />
                  </>
                ) : (
                  "–"
                )}
              </td>
              <td className="py-1 pr-3 text-right tabular">{pct(m.availability.day)}</td>
              <td className="py-1 pr-3 text-right tabular">{pct(m.availability.week)}</td>
              <td className="py-1 text-right tabular">{pct(m.availability.month)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/** A round upper bound for the y axis: 1, 2, 2.5, 5 × 10^n (at least 10 ms). */
function niceMax(n: number): number {
  if (n <= 10) return 10;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

const hm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/** Response times (mean per slot) as bars, failures red; the numbers in each slot's tooltip and in the legend. */
export function ResponseTimeChart({ slots }: { slots: LatencySlot[] }) {
  if (slots.length === 0) return <p className="text-fg-muted">No results yet: the chart fills in as checks run.</p>;
  const checks = slots.reduce((n, s) => n + s.checks, 0);
  const failures = slots.reduce((n, s) => n + s.failures, 0);
  const timed = slots.filter((s) => s.avgMs !== null);
  const mean = timed.length
    ? Math.round(timed.reduce((n, s) => n + (s.avgMs ?? 0) * s.checks, 0) / timed.reduce((n, s) => n + s.checks, 0))
    : null;
  const worst = Math.max(0, ...slots.map((s) => s.maxMs ?? 0));
  const max = niceMax(Math.max(1, ...slots.map((s) => s.avgMs ?? 0)));
  const W = 720;
  const H = 120;
  const RAIL = 6;
  const n = Math.max(slots.length, 60);
  const slot = W / n;
  const bar = Math.max(1, slot - Math.min(2, slot * 0.25));
  const summary = `Response times, last 24 h: ${countOf(checks, "check")}, ${failures} failed${mean !== null ? `, mean ${formatDuration(mean)}` : ""}, slowest ${formatDuration(worst)}`;
  const first = slots[0];
  const last = slots[slots.length - 1];
  const span = (s: LatencySlot) => (s.from === s.to ? absoluteTime(s.from) : `${absoluteTime(s.from)} – ${hm(s.to)}`);
  return (
    <figure className="m-0" data-testid="uptime-chart">
      <ul className="mb-2 flex flex-wrap gap-x-5 gap-y-1 text-[12.5px]" aria-label="Summary">
        <Stat label="Checks" value={String(checks)} />
        <Stat label="Failed" value={String(failures)} swatch={failures > 0 ? "bg-error" : undefined} />
        <Stat label="Mean" value={mean !== null ? formatDuration(mean) : "–"} swatch="bg-fg-dim" />
        <Stat label="Slowest" value={formatDuration(worst)} />
      </ul>
      <div className="relative">
        <span className="tabular pointer-events-none absolute top-0 left-0 bg-bg pr-1 text-[11px] text-fg-dim">{formatDuration(max)}</span>
        <svg
          viewBox={`0 0 ${W} ${H + RAIL + 2}`}
          preserveAspectRatio="none"
          className="block h-[128px] w-full"
          role="img"
          aria-label={summary}
        >
          <line x1="0" x2={W} y1="0.5" y2="0.5" className="stroke-border" strokeDasharray="3 3" vectorEffect="non-scaling-stroke" />
          <line x1="0" x2={W} y1={H / 2} y2={H / 2} className="stroke-border" strokeDasharray="3 3" vectorEffect="non-scaling-stroke" />
          <line x1="0" x2={W} y1={H - 0.5} y2={H - 0.5} className="stroke-border-strong" vectorEffect="non-scaling-stroke" />
          {slots.map((s, i) => {
            const x = i * slot + (slot - bar) / 2;
            const failed = s.failures > 0;
            // A failure without a measured time (older results) fills the height, faintly.
            const h = s.avgMs !== null ? Math.max(1, (Math.min(s.avgMs, max) / max) * (H - 2)) : failed ? H - 2 : 0;
            const tip = `${span(s)}: ${countOf(s.checks, "check")}${failed ? `, ${s.failures} failed` : ""}${s.avgMs !== null ? `, ${s.checks > 1 ? "mean " : ""}${formatDuration(s.avgMs)}` : ""}${s.checks > 1 && s.maxMs !== null ? `, slowest ${formatDuration(s.maxMs)}` : ""}`;
            return (
              <g key={s.from} data-failed={failed || undefined}>
                <title>{tip}</title>
                <rect x={i * slot} y={0} width={slot} height={H + RAIL + 2} fill="transparent" />
                {h > 0 ? (
                  <rect
                    x={x}
                    y={H - 1 - h}
                    width={bar}
                    height={h}
                    fill={failed ? "var(--level-error)" : "var(--fg-dim)"}
                    opacity={s.avgMs === null ? 0.35 : 1}
                  />
                ) : null}
                {s.checks > 0 ? (
                  <rect x={x} y={H + 2} width={bar} height={RAIL} fill={failed ? "var(--level-error)" : "var(--border-strong)"} />
                ) : null}
              </g>
            );
          })}
        </svg>
        <div className="mt-1 flex justify-between gap-4 whitespace-nowrap text-[11px] text-fg-dim tabular" aria-hidden="true">
          {slots.length >= n ? (
            <>
              <span>{absoluteTime(first.from)}</span>
              <span>{absoluteTime(last.to)}</span>
            </>
          ) : (
            <span>
              {absoluteTime(first.from)}
              {slots.length > 1 ? ` – ${absoluteTime(last.to)}` : ""}
            </span>
          )}
        </div>
      </div>
    </figure>
  );
}

function Stat({ label, value, swatch }: { label: string; value: string; swatch?: string }) {
  return (
    <li className="flex items-center gap-1.5">
      {swatch ? <span className={`inline-block size-2.5 rounded-[2px] ${swatch}`} aria-hidden="true" /> : null}
      <span className="text-fg-muted">{label}</span>
      <span className="tabular font-medium">{value}</span>
    </li>
  );
}

/** 30 → "30 s", 300 → "5 min", 7200 → "2 h". */
export function every(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** 500 → "500 ms", 10000 → "10 s", 2500 → "2.5 s". */
export function timeout(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(2))} s`;
}

/** The most recent results as text, newest first. */
export function UptimeResults({ results }: { results: UptimeDetail["recent"] }) {
  if (results.length === 0) return <p className="text-fg-muted">No checks yet.</p>;
  return (
    <ScrollRegion label="Recent checks">
      <table className="w-full border-collapse text-[13px]" data-testid="uptime-results">
        <thead className="text-left text-[12px] text-fg-muted">
          <tr className="border-b border-border">
            <th className="w-[200px] py-1 pr-3 font-medium">Checked at</th>
            <th className="w-[90px] py-1 pr-3 font-medium">Result</th>
            <th className="w-[70px] py-1 pr-3 font-medium">Status</th>
            <th className="w-[90px] py-1 pr-3 text-right font-medium">Latency</th>
            <th className="py-1 pl-3 font-medium">Error</th>
          </tr>
        </thead>
        <tbody>
          {results.map((r) => (
            <tr key={r.checkedAt} className="h-8 border-b border-border">
              <td className="pr-3 tabular text-fg-muted">{absoluteTime(r.checkedAt)}</td>
              <td className="pr-3">
                <span className="flex items-center gap-2">
                  <StatusDot status={r.up ? "ok" : "error"} /> {r.up ? "Up" : "Down"}
                </span>
              </td>
              <td className="pr-3 tabular">{r.status ?? "–"}</td>
              <td className="pr-3 text-right tabular">{r.latencyMs !== null ? formatDuration(r.latencyMs) : "–"}</td>
              <td className={`pl-3 font-mono text-[12px] ${r.error ? "text-danger" : "text-fg-dim"}`}>{r.error ?? "–"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/** A label over a value, as in the monitor pages' configuration grids. */
export function Fact({ label, children, mono, big }: { label: string; children: ReactNode; mono?: boolean; big?: boolean }) {
  return (
    <div className="flex min-w-0 flex-col py-1">
      <span className="text-[11px] uppercase tracking-wide text-fg-dim">{label}</span>
      <span className={`${mono ? "truncate font-mono text-[12px]" : ""} ${big ? "tabular text-[18px] font-semibold" : ""}`}>
        {children}
      </span>
    </div>
  );
}
