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
        <div
          aria-hidden="true"
          className="sticky top-0 grid grid-cols-[minmax(0,5fr)_96px_minmax(0,6fr)_72px] gap-2 border-b border-border bg-subtle px-2 py-1 text-fg-muted"
        >
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

function SpanRow({ row: r, href }: { row: TracePageRow; href: string }) {
  const failed = r.errors > 0 || (r.status !== null && r.status !== "ok" && FAILED_STATUS.test(r.status));
  return (
    <li
      id={`span-${r.spanId}`}
      data-span={r.spanId}
      data-errors={r.errors || undefined}
      className={`grid scroll-mt-24 grid-cols-[minmax(0,5fr)_96px_minmax(0,6fr)_72px] items-center gap-2 border-b border-border px-2 py-[3px] last:border-b-0 target:bg-hover hover:bg-hover ${r.root ? "font-medium" : ""}`}
    >
      <span className="truncate" style={{ paddingLeft: `${Math.min(r.depth, 16) * 12}px` }}>
        <a href={href} className="hover:underline" title={r.group ? `Show all ${r.group.count}` : r.name}>
          {r.group ? (
            <span className="mr-1.5 rounded-sm bg-subtle px-1 font-mono text-[11px] text-fg" data-testid="span-group">
              {r.group.count}×
            </span>
          ) : null}
          {r.op ? <span className="mr-1.5 font-mono font-normal text-fg-muted">{r.op}</span> : null}
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
      <span className="truncate font-mono text-[11.5px] text-fg-muted">{r.projectSlug}</span>
      <span className="relative h-3" title={`starts at +${durationMs(r.offset)}`}>
        <span
          className={`absolute top-0 h-3 rounded-sm ${failed ? "bg-error" : r.root ? "bg-fg-muted" : "bg-info"} opacity-80`}
          style={{ left: `${(r.left * 100).toFixed(2)}%`, width: `max(2px, ${(r.width * 100).toFixed(2)}%)` }}
        />
      </span>
      <span className="text-right font-mono tabular-nums text-fg-muted">{durationMs(r.duration)}</span>
    </li>
  );
}
