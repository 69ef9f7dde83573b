/**
 * The trace an error happened in: its spans as a waterfall and the logs that share its trace id.
 * Server-rendered, no script: bars are positioned with percentages of the trace's duration.
 * Everything from the SDK is rendered as text.
 */
import type { TraceView } from "@/server/events/traces";
import { LevelDot } from "../kit/level";

/** The event's trace id (`contexts.trace.trace_id`), when it has one. */
export function traceIdOf(event: unknown): string | null {
  const contexts = (event as { contexts?: { trace?: { trace_id?: unknown } } } | null)?.contexts;
  const id = contexts?.trace?.trace_id;
  return typeof id === "string" && /^[0-9a-f]{32}$/i.test(id.replace(/-/g, "")) ? id : null;
}

function ms(n: number): string {
  if (n < 1) return "<1 ms";
  if (n < 1000) return `${Math.round(n)} ms`;
  return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
}

function clock(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(11, 23);
}

const FAILED = /error|internal|unknown|deadline|unavailable|aborted|cancel|denied|unauth|not_found|exhausted|invalid|failed/i;

function Waterfall({ trace }: { trace: TraceView }) {
  const total = Math.max(1, trace.end - trace.start);
  return (
    <figure aria-label="Spans" className="overflow-hidden rounded-md border border-border text-[12.5px]">
      <div className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)_64px] gap-2 border-b border-border bg-subtle px-2 py-1 text-fg-muted">
        <span>Span</span>
        <span>Timeline ({ms(total)})</span>
        <span className="text-right">Duration</span>
      </div>
      {trace.rows.map(({ span, depth, left, width }) => {
        const failed = span.status !== null && span.status !== "ok" && FAILED.test(span.status);
        return (
          <div
            key={span.spanId}
            className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)_64px] items-center gap-2 border-b border-border px-2 py-[3px] last:border-b-0 hover:bg-hover"
          >
            <span className="truncate" style={{ paddingLeft: `${Math.min(depth, 12) * 12}px` }} title={span.name}>
              {span.op ? <span className="mr-1.5 font-mono text-fg-muted">{span.op}</span> : null}
              <span>{span.name}</span>
              {failed ? <span className="ml-1.5 text-danger">{span.status}</span> : null}
            </span>
            <span className="relative h-3" title={`starts at +${ms(left * total)}`}>
              <span
                className={`absolute top-0 h-3 rounded-sm ${failed ? "bg-error" : "bg-info"} opacity-80`}
                style={{ left: `${(left * 100).toFixed(3)}%`, width: `max(2px, ${(width * 100).toFixed(3)}%)` }}
              />
            </span>
            <span className="text-right font-mono tabular-nums text-fg-muted">{ms(span.end - span.start)}</span>
          </div>
        );
      })}
    </figure>
  );
}

function Logs({ trace }: { trace: TraceView }) {
  return (
    <ol aria-label="Logs" className="overflow-hidden rounded-md border border-border font-mono text-[12px]">
      {trace.logs.map((log) => (
        <li key={log.key} className="flex items-baseline gap-2 border-b border-border px-2 py-[3px] last:border-b-0">
          <span className="shrink-0 tabular-nums text-fg-muted">{clock(log.timestamp)}</span>
          <span className="inline-flex w-14 shrink-0 items-center gap-1.5">
            <LevelDot level={log.level} />
            {log.level}
          </span>
          <span className="min-w-0 whitespace-pre-wrap break-words">{log.body}</span>
        </li>
      ))}
    </ol>
  );
}

export function TracePanel({ traceId, trace, href }: { traceId: string; trace: TraceView | null; href: string }) {
  return (
    <section id="trace" aria-labelledby="trace-title" className="mt-8 scroll-mt-24">
      <div className="mb-1 flex flex-wrap items-baseline gap-3">
        <h2 id="trace-title" className="section-title">
          Trace
        </h2>
        <a href={href} className="inline-flex min-h-6 items-center text-[12.5px] hover:underline" data-testid="open-trace">
          Open the whole trace →
        </a>
      </div>
      <p className="mb-2 text-[12.5px] text-fg-muted">
        <span className="font-mono">{traceId}</span> — this project&apos;s spans and logs of the request this error happened in; the trace
        page shows them across every project; performance analytics (throughput, percentiles, dashboards) are not part of Errata.
      </p>
      {trace === null ? (
        <p className="rounded-md border border-border px-3 py-3 text-fg-muted">
          No spans or logs were received for this trace. Set <span className="font-mono">tracesSampleRate</span> and{" "}
          <span className="font-mono">enableLogs: true</span> in <span className="font-mono">Sentry.init</span> to see them here.
        </p>
      ) : (
        <div className="flex flex-col gap-3">
          {trace.rows.length > 0 ? <Waterfall trace={trace} /> : null}
          {trace.logs.length > 0 ? <Logs trace={trace} /> : null}
          {trace.truncated ? (
            <p className="text-[12.5px] text-fg-muted">Only the first 500 spans and 200 logs of this trace are shown.</p>
          ) : null}
        </div>
      )}
    </section>
  );
}
