/**
 * Pieces of the monitor screens, rendered on the server: a status dot, the timeline strip of recent
 * check-ins and the durations chart (inline SVG). Colours: failures saturated (error/timeout red,
 * missed amber), ok green (a grey dot read as "nothing happened"), in progress blue.
 */
import type { MonitorCheckIn } from "@/server/monitors/cron";
import { absoluteTime, countOf } from "../kit/format";

/** Green with ≥ 3:1 contrast on both themes' backgrounds (a graphic, not text). */
export const OK_GREEN = "#2f9e5b";

const COLOUR: Record<string, string> = {
  ok: OK_GREEN,
  error: "var(--level-error)",
  timeout: "var(--level-error)",
  missed: "var(--level-warning)",
  in_progress: "var(--level-info)",
  active: "var(--border-strong)",
};

export const STATUS_LABEL: Record<string, string> = {
  ok: "OK",
  error: "Failed",
  timeout: "Timed out",
  missed: "Missed",
  in_progress: "In progress",
  active: "Waiting for first check-in",
  paused: "Paused",
};

export function StatusDot({ status }: { status: string }) {
  return (
    <span
      aria-hidden="true"
      className="inline-block size-2.5 shrink-0 rounded-full"
      data-status={status}
      style={{ background: COLOUR[status] ?? "var(--border-strong)" }}
    />
  );
}

/** Oldest left, newest right; one tick per check-in. */
export function CheckInStrip({ checkIns, slots = 30 }: { checkIns: MonitorCheckIn[]; slots?: number }) {
  const items = checkIns.slice(0, slots).reverse();
  const label = items.length === 0 ? "No check-ins yet" : `Last ${countOf(items.length, "check-in")}, oldest first`;
  return (
    <span className="inline-flex h-4 items-end gap-[2px]" role="img" aria-label={label} data-testid="checkin-strip">
      {items.length < slots ? <span className="h-2 rounded-[1px] bg-muted" style={{ width: (slots - items.length) * 7 - 2 }} /> : null}
      {items.map((c) => (
        <span
          key={c.id}
          title={`${STATUS_LABEL[c.status] ?? c.status} · ${absoluteTime(c.createdAt)}${c.durationMs !== null ? ` · ${formatDuration(c.durationMs)}` : ""}`}
          className="h-4 w-[5px] rounded-[1px]"
          style={{ background: COLOUR[c.status] ?? "var(--border-strong)" }}
        />
      ))}
    </span>
  );
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return m < 60 ? `${m} min ${s} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Durations of finished check-ins as bars (server SVG); failures in their colour. */
export function DurationsChart({ checkIns }: { checkIns: MonitorCheckIn[] }) {
  const items = checkIns
    .filter((c) => c.durationMs !== null)
    .slice(0, 60)
    .reverse();
  if (items.length === 0) return <p className="text-fg-muted">No durations yet: they appear once check-ins report completion.</p>;
  const max = Math.max(...items.map((c) => c.durationMs ?? 0), 1);
  const w = 720;
  const h = 120;
  const bw = w / Math.max(items.length, 20);
  return (
    <figure>
      <svg
        viewBox={`0 0 ${w} ${h + 16}`}
        className="h-auto w-full max-w-[720px]"
        role="img"
        aria-label={`Durations of the last ${countOf(items.length, "check-in")}; longest ${formatDuration(max)}`}
      >
        <line x1="0" x2={w} y1={h} y2={h} stroke="var(--border)" />
        <text x="0" y="10" fontSize="10" fill="var(--fg-dim)">
          {formatDuration(max)}
        </text>
        {items.map((c, i) => {
          const bh = Math.max(1, ((c.durationMs ?? 0) / max) * (h - 14));
          return (
            <rect
              key={c.id}
              x={i * bw + 1}
              y={h - bh}
              width={Math.max(1, bw - 2)}
              height={bh}
              rx="1"
              fill={c.status === "ok" ? "var(--fg-dim)" : (COLOUR[c.status] ?? "var(--fg-dim)")}
            >
              <title>{`${absoluteTime(c.createdAt)} · ${formatDuration(c.durationMs ?? 0)} · ${STATUS_LABEL[c.status] ?? c.status}`}</title>
            </rect>
          );
        })}
        <text x="0" y={h + 13} fontSize="10" fill="var(--fg-dim)">
          {absoluteTime(items[0].createdAt)}
        </text>
        <text x={w} y={h + 13} fontSize="10" fill="var(--fg-dim)" textAnchor="end">
          {absoluteTime(items[items.length - 1].createdAt)}
        </text>
      </svg>
    </figure>
  );
}
