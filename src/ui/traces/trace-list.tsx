/**
 * Recent traces, newest first: the filter form (service, transaction, minimum duration, with
 * errors, period — a plain GET form, so every view is a URL), the chosen metric's chart, and the
 * table (root transaction, services, spans, errors, duration, start), which scrolls in its own box
 * on a phone.
 */
import type { TraceList } from "@/server/traces/trace-page";
import { ScrollRegion } from "../kit/scroll-region";
import { TimeAgo } from "../kit/time-ago";
import { MetricBars } from "./metric-chart";
import { durationMs } from "./trace-format";

export const PERIODS: ReadonlyArray<[string, string]> = [
  ["1h", "Last hour"],
  ["24h", "Last 24 hours"],
  ["7d", "Last 7 days"],
  ["14d", "Last 14 days"],
  ["30d", "Last 30 days"],
];

export interface TraceFilterValues {
  service: string;
  transaction: string;
  minDuration: string;
  hasErrors: boolean;
  period: string;
  metric: string;
}

export function TraceFilters({ action, list, values }: { action: string; list: TraceList; values: TraceFilterValues }) {
  return (
    <form action={action} method="get" className="mb-3 flex flex-wrap items-end gap-2 text-[13px]" aria-label="Filter traces">
      <label className="flex flex-col gap-0.5">
        <span className="text-[12px] text-fg-muted">Service</span>
        <select name="service" defaultValue={values.service} className="input w-[160px]">
          <option value="">All services</option>
          {list.services.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-0.5">
        <span className="text-[12px] text-fg-muted">Transaction</span>
        <input
          name="transaction"
          defaultValue={values.transaction}
          placeholder="GET /checkout"
          maxLength={200}
          className="input w-[200px]"
        />
      </label>
      <label className="flex flex-col gap-0.5">
        <span className="text-[12px] text-fg-muted">Duration at least (ms)</span>
        <input name="minDuration" defaultValue={values.minDuration} inputMode="numeric" placeholder="0" className="input w-[120px]" />
      </label>
      <label className="flex flex-col gap-0.5">
        <span className="text-[12px] text-fg-muted">Period</span>
        <select name="period" defaultValue={values.period} className="input w-[140px]">
          {PERIODS.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label className="flex min-h-8 items-center gap-1.5">
        <input type="checkbox" name="hasErrors" value="1" defaultChecked={values.hasErrors} /> With errors
      </label>
      {values.metric ? <input type="hidden" name="metric" value={values.metric} /> : null}
      <button type="submit" className="btn btn-sm">
        Apply
      </button>
    </form>
  );
}

export function MetricSection({ list, metricHref }: { list: TraceList; metricHref: (name: string) => string }) {
  if (list.metricNames.length === 0) return null;
  return (
    <section aria-labelledby="metrics-title" className="mb-4">
      <div className="mb-1 flex flex-wrap items-baseline gap-2">
        <h2 id="metrics-title" className="section-title">
          Metrics
        </h2>
        <nav aria-label="Metric" className="flex flex-wrap gap-1 text-[12px]">
          {list.metricNames.slice(0, 12).map((m) => (
            <a
              key={`${m.name}/${m.type}`}
              href={metricHref(m.name)}
              aria-current={list.chart?.name === m.name ? "true" : undefined}
              className="rounded-sm border border-border px-1.5 py-0.5 font-mono hover:bg-hover aria-[current=true]:border-border-strong aria-[current=true]:bg-subtle"
            >
              {m.name}
            </a>
          ))}
        </nav>
      </div>
      {list.chart ? <MetricBars {...list.chart} /> : null}
    </section>
  );
}

export function TraceTable({ org, list, now }: { org: string; list: TraceList; now: number }) {
  return (
    <ScrollRegion label="Traces" className="rounded-md border border-border">
      <table className="w-full min-w-[720px] text-[13px]" data-testid="trace-list">
        <thead className="bg-subtle text-left text-[12px] text-fg-muted">
          <tr>
            <th className="px-2 py-1 font-normal">Trace</th>
            <th className="px-2 py-1 font-normal">Services</th>
            <th className="px-2 py-1 text-right font-normal">Spans</th>
            <th className="px-2 py-1 text-right font-normal">Errors</th>
            <th className="px-2 py-1 text-right font-normal">Duration</th>
            <th className="px-2 py-1 text-right font-normal">Started</th>
          </tr>
        </thead>
        <tbody>
          {list.items.map((t) => (
            <tr key={`${t.traceId}/${t.projectSlug}/${t.start}`} className="h-9 border-t border-border hover:bg-hover">
              <td className="max-w-[360px] px-2">
                <a
                  href={`/${encodeURIComponent(org)}/traces/${t.traceId}`}
                  className="block truncate font-medium hover:underline"
                  title={t.rootName}
                >
                  {t.rootOp ? <span className="mr-1.5 font-mono font-normal text-fg-muted">{t.rootOp}</span> : null}
                  {t.rootName}
                </a>
                <span className="font-mono text-[11px] text-fg-dim">{t.traceId}</span>
              </td>
              <td className="px-2 font-mono text-[12px] text-fg-muted">{t.services.join(", ")}</td>
              <td className="px-2 text-right tabular-nums">{t.spans}</td>
              <td className={`px-2 text-right tabular-nums ${t.errors > 0 ? "text-danger" : "text-fg-muted"}`}>{t.errors}</td>
              <td className="px-2 text-right font-mono tabular-nums">{durationMs(t.duration)}</td>
              <td className="px-2 text-right text-fg-muted">
                <TimeAgo ms={t.start} now={now} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
