/**
 * A trace's spans as a waterfall: tree order, indentation by depth, a bar on the trace's time
 * axis, the duration, the service, and a mark on every span an error happened in. Server-rendered
 * without script, kept lean per row (a trace page of 5,000 spans is 5,000 of these): bars are
 * positioned with percentages, each name links to the span's details (`?span=`), and the table
 * scrolls sideways in its own box on a phone. Everything from the SDK is rendered as text.
 */
import type { TracePageRow } from "@/server/traces/trace-page";
import { ScrollRegion } from "../kit/scroll-region";
import { durationMs, FAILED_STATUS } from "./trace-format";

export function Waterfall({
  rows,
  total,
  spanHref,
  expandHref,
}: {
  rows: TracePageRow[];
  total: number;
  spanHref: (spanId: string) => string;
  /** the page with a folded run of alike spans shown in full */
  expandHref: (spanId: string) => string;
}) {
  return (
    <ScrollRegion label="Span waterfall" className="rounded-md border border-border">
      <div className="min-w-[680px] text-[12.5px]" data-testid="waterfall">
        <div aria-hidden="true" className="wf-row sticky top-0 bg-subtle text-fg-muted">
          <span>Span</span>
          <span>Service</span>
          <span>Timeline ({durationMs(total)})</span>
          <span className="text-right">Duration</span>
        </div>
        <ol aria-label={`Spans, ${durationMs(total)} in all`}>
          {rows.map((r) => (
            <SpanRow key={r.spanId} row={r} href={r.group ? expandHref(r.spanId) : spanHref(r.spanId)} />
          ))}
        </ol>
      </div>
    </ScrollRegion>
  );
}

/** One row, lean (a page of 5,000 spans draws up to 1,500 of these): short classes from globals.css. */
function SpanRow({ row: r, href }: { row: TracePageRow; href: string }) {
  const failed = r.errors > 0 || (r.status !== null && r.status !== "ok" && FAILED_STATUS.test(r.status));
  return (
    <li id={`span-${r.spanId}`} className="wf-row" data-root={r.root || undefined} data-errors={r.errors || undefined}>
      <span className="wf-name" style={r.depth > 0 ? { paddingLeft: Math.min(r.depth, 16) * 12 } : undefined}>
        <a href={href} className="hover:underline">
          {r.group ? (
            <span className="mr-1.5 rounded-sm bg-subtle px-1 font-mono text-[11px]" data-testid="span-group">
              {r.group.count}×
            </span>
          ) : null}
          {r.op ? <span className="wf-op">{r.op}</span> : null}
          {r.name}
        </a>
        {r.group && r.group.spans > r.group.count ? <span className="ml-1.5 text-[11px] text-fg-muted">{r.group.spans} spans</span> : null}
        {r.errors > 0 ? (
          <span className="ml-1.5 rounded-sm border border-error px-1 text-[11px] text-danger" data-testid="span-error-mark">
            {r.errors === 1 ? "error" : `${r.errors} errors`}
          </span>
        ) : null}
        {r.logs > 0 ? <span className="ml-1.5 text-[11px] text-fg-muted">{r.logs === 1 ? "1 log" : `${r.logs} logs`}</span> : null}
      </span>
      <span className="wf-svc">{r.projectSlug}</span>
      <span className="wf-track">
        <span
          className="wf-bar"
          data-k={failed ? "err" : r.root ? "root" : undefined}
          style={{ left: `${(r.left * 100).toFixed(2)}%`, width: `${(r.width * 100).toFixed(2)}%` }}
        />
      </span>
      <span className="wf-dur">{durationMs(r.duration)}</span>
    </li>
  );
}
