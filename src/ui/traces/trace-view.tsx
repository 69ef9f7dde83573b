/**
 * One trace across the organization's projects: what it did (services, transactions, duration),
 * the errors in it (each placed on its span and linked to its issue), every span as a waterfall,
 * the selected span's attributes, its logs, its metric samples and the replays that share it.
 * Event content is rendered as text throughout.
 */
import type { TracePage } from "@/server/traces/trace-page";
import { CopyButton } from "../kit/copy-button";
import { absoluteTime, clockTime, countOf } from "../kit/format";
import { LevelDot } from "../kit/level";
import { MetricMarks } from "./metric-chart";
import { durationMs, metricValue } from "./trace-format";
import { Waterfall } from "./waterfall";

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="flex flex-col" data-testid={testId}>
      <dt className="text-[11.5px] text-fg-muted">{label}</dt>
      <dd className="font-mono tabular-nums">{value}</dd>
    </div>
  );
}

export function TraceHeader({ trace }: { trace: TracePage }) {
  const root = trace.transactions[0];
  return (
    <header className="mb-4 flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <h1 className="text-[18px] font-semibold">{root ? root.name : "Trace"}</h1>
        <span className="font-mono text-[12.5px] text-fg-muted" data-testid="trace-id">
          {trace.traceId}
        </span>
        <CopyButton text={trace.traceId} label="Copy trace id" />
      </div>
      <dl className="flex flex-wrap gap-x-6 gap-y-2 text-[13px]">
        <Stat label="Duration" value={durationMs(trace.end - trace.start)} />
        <Stat label="Started" value={absoluteTime(trace.start)} />
        <Stat
          label="Spans"
          value={`${trace.spanCount.toLocaleString("en")}${trace.truncated.spans ? "+" : ""}`}
          testId="trace-span-count"
        />
        <Stat label="Errors" value={String(trace.errors.length)} testId="trace-error-count" />
        <Stat label="Logs" value={`${trace.logs.length}${trace.truncated.logs ? "+" : ""}`} />
      </dl>
      {trace.services.length > 0 ? (
        <ul aria-label="Services" className="flex flex-wrap gap-1.5 text-[12px]">
          {trace.services.map((s) => (
            <li key={s.slug} className="rounded-sm border border-border px-1.5 py-0.5">
              <span className="font-mono">{s.slug}</span> <span className="text-fg-muted">{s.platform}</span>{" "}
              <span className="tabular-nums text-fg-muted">
                · {countOf(s.spans, "span")}
                {s.errors > 0 ? ` · ${countOf(s.errors, "error")}` : ""}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </header>
  );
}

function Errors({ org, trace, spanHref }: { org: string; trace: TracePage; spanHref: (id: string) => string }) {
  if (trace.errors.length === 0) return null;
  return (
    <section aria-labelledby="trace-errors" className="mb-4">
      <h2 id="trace-errors" className="section-title mb-1">
        Errors
      </h2>
      <ul className="overflow-hidden rounded-md border border-border text-[13px]" data-testid="trace-errors">
        {trace.errors.map((e) => (
          <li key={e.eventId} className="flex flex-wrap items-center gap-x-2 gap-y-0.5 border-b border-border px-2 py-1.5 last:border-b-0">
            <LevelDot level={e.level} />
            <a
              href={`/${encodeURIComponent(org)}/issues/${e.issueId}?event=${e.eventId}`}
              className="font-mono text-[12px] hover:underline"
              data-testid="trace-error-issue"
            >
              {e.shortId}
            </a>
            <span className="order-last min-w-0 basis-full truncate font-medium sm:order-none sm:basis-auto sm:flex-1" title={e.title}>
              {e.title}
            </span>
            <span className="font-mono text-[11.5px] text-fg-muted">{e.projectSlug}</span>
            {e.spanId ? (
              <a href={spanHref(e.spanId)} className="text-[12px] text-fg-muted hover:underline">
                on span <span className="font-mono">{e.spanId.slice(0, 8)}</span>
              </a>
            ) : (
              <span className="text-[12px] text-fg-muted">on no kept span</span>
            )}
            <span className="font-mono text-[11.5px] tabular-nums text-fg-muted">
              {e.at < trace.start ? "before its first span" : `+${durationMs(e.at - trace.start)}`}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SpanDetails({ trace, clearHref }: { trace: TracePage; clearHref: string }) {
  const sel = trace.selected;
  if (!sel) return null;
  const row = trace.rows.find((r) => r.spanId === sel.spanId);
  const entries = Object.entries(sel.attributes).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section aria-labelledby="span-details" className="mb-3 rounded-md border border-border-strong px-3 py-2" data-testid="span-details">
      <div className="mb-1 flex flex-wrap items-baseline gap-2">
        <h2 id="span-details" className="text-[14px] font-semibold">
          {row ? row.name : sel.spanId}
        </h2>
        <span className="font-mono text-[12px] text-fg-muted">{sel.spanId}</span>
        <a href={clearHref} className="ml-auto text-[12px] text-fg-muted hover:underline">
          Close
        </a>
      </div>
      {row ? (
        <p className="mb-2 text-[12.5px] text-fg-muted">
          {row.op ?? "span"} in <span className="font-mono">{row.projectSlug}</span> · {durationMs(row.duration)} · starts at +
          {durationMs(row.offset)}
          {row.status ? ` · ${row.status}` : ""}
        </p>
      ) : null}
      {entries.length > 0 ? (
        <dl className="grid grid-cols-1 gap-x-4 gap-y-0.5 text-[12.5px] sm:grid-cols-[minmax(0,1fr)_minmax(0,2fr)]">
          {entries.map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="truncate font-mono text-fg-muted" title={k}>
                {k}
              </dt>
              <dd className="min-w-0 break-words font-mono">{typeof v === "string" ? v : JSON.stringify(v)}</dd>
            </div>
          ))}
        </dl>
      ) : (
        <p className="text-[12.5px] text-fg-muted">No attributes.</p>
      )}
    </section>
  );
}

/** Logs drawn before "show all": a trace's first hundred say what happened; the rest on request. */
const LOGS_SHOWN = 100;

function Logs({
  trace,
  spanHref,
  allLogsHref,
  allLogs,
}: {
  trace: TracePage;
  spanHref: (id: string) => string;
  allLogsHref: string;
  allLogs: boolean;
}) {
  const shown = allLogs ? trace.logs : trace.logs.slice(0, LOGS_SHOWN);
  return (
    <section aria-labelledby="trace-logs" className="mt-5">
      <h2 id="trace-logs" className="section-title mb-1">
        Logs
      </h2>
      {trace.logs.length === 0 ? (
        <p className="text-[13px] text-fg-muted">
          No logs were received for this trace. <span className="font-mono">enableLogs: true</span> in{" "}
          <span className="font-mono">Sentry.init</span> sends them.
        </p>
      ) : (
        <ol className="overflow-hidden rounded-md border border-border font-mono text-[12px]" data-testid="trace-logs">
          {shown.map((l) => (
            <li key={l.key} id={`log-${l.key}`} className="log-row">
              <span className="log-at">{clockTime(l.at)}</span>
              <span className="log-lv">
                <LevelDot level={l.level} />
                {l.level}
              </span>
              <span className="log-body">{l.body}</span>
              <span className="log-svc">{l.projectSlug}</span>
              {l.spanId ? <a href={spanHref(l.spanId)}>span {l.spanId.slice(0, 8)}</a> : null}
            </li>
          ))}
        </ol>
      )}
      {shown.length < trace.logs.length ? (
        <p className="mt-1 text-[12.5px]">
          {(trace.logs.length - shown.length).toLocaleString("en-US")} more logs.{" "}
          <a href={allLogsHref} className="underline">
            Show all logs
          </a>
        </p>
      ) : null}
      {trace.truncated.logs ? <p className="mt-1 text-[12.5px] text-fg-muted">Only the first 1,000 logs of this trace are read.</p> : null}
    </section>
  );
}

function Metrics({ trace }: { trace: TracePage }) {
  if (trace.metrics.length === 0) return null;
  return (
    <section aria-labelledby="trace-metrics" className="mt-5">
      <h2 id="trace-metrics" className="section-title mb-1">
        Metrics
      </h2>
      <ul className="flex flex-col gap-2" data-testid="trace-metrics">
        {trace.metrics.map((m) => {
          const values = m.samples.map((s) => s.value);
          const sum = values.reduce((a, b) => a + b, 0);
          return (
            <li key={`${m.name}/${m.type}`} className="rounded-md border border-border px-3 py-1.5">
              <div className="flex flex-wrap items-baseline gap-2 text-[12.5px]">
                <span className="font-mono font-medium">{m.name}</span>
                <span className="text-fg-muted">
                  {m.type} · {countOf(m.samples.length, "sample")} ·{" "}
                  {m.type === "counter"
                    ? `sum ${metricValue(sum, m.unit)}`
                    : `min ${metricValue(Math.min(...values), m.unit)}, max ${metricValue(Math.max(...values), m.unit)}`}
                </span>
              </div>
              <MetricMarks samples={m.samples} start={trace.start} end={trace.end} unit={m.unit} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/**
 * Replays that share the trace, linked to the player. An id the trace names whose replay is not
 * stored (sampled out, expired, replays off, or in a project the viewer does not see) is listed
 * as text and says so (`replayHref` returns null).
 */
function Replays({ trace, replayHref }: { trace: TracePage; replayHref: (id: string) => string | null }) {
  if (trace.replayIds.length === 0) return null;
  return (
    <section aria-labelledby="trace-replays" className="mt-5" data-testid="trace-replays">
      <h2 id="trace-replays" className="section-title mb-1">
        Replays
      </h2>
      <ul className="flex flex-col gap-1 text-[13px]">
        {trace.replayIds.map((id) => {
          const href = replayHref(id);
          return (
            <li key={id} className="font-mono">
              {href ? (
                <a href={href} className="hover:underline">
                  {id}
                </a>
              ) : (
                <>
                  {id} <span className="font-sans text-fg-muted">— no stored replay you can see (not kept, or expired).</span>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export function TraceView({
  org,
  trace,
  spanHref,
  expandHref,
  allHref,
  allLogsHref,
  allLogs,
  clearHref,
  replayHref,
}: {
  org: string;
  trace: TracePage;
  spanHref: (spanId: string) => string;
  expandHref: (spanId: string) => string;
  allHref: string;
  allLogsHref: string;
  allLogs: boolean;
  clearHref: string;
  replayHref: (id: string) => string | null;
}) {
  return (
    <>
      <TraceHeader trace={trace} />
      <Errors org={org} trace={trace} spanHref={spanHref} />
      <section aria-labelledby="trace-spans">
        <h2 id="trace-spans" className="section-title mb-1">
          Spans
        </h2>
        <SpanDetails trace={trace} clearHref={clearHref} />
        {trace.rows.length > 0 ? (
          <Waterfall rows={trace.rows} total={Math.max(1, trace.end - trace.start)} spanHref={spanHref} expandHref={expandHref} />
        ) : (
          <p className="text-[13px] text-fg-muted">
            No spans were received for this trace, only its errors or logs. <span className="font-mono">tracesSampleRate</span> in{" "}
            <span className="font-mono">Sentry.init</span> sends them.
          </p>
        )}
        {trace.rows.some((r) => r.group) ? (
          <p className="mt-1 text-[12.5px] text-fg-muted">
            Runs of five or more alike spans are folded into one row; open one to see them all.
          </p>
        ) : null}
        {trace.rowsLeftOut > 0 ? (
          <p className="mt-1 text-[12.5px]">
            {trace.rowsLeftOut.toLocaleString("en-US")} more rows are not drawn.{" "}
            <a href={allHref} className="underline">
              Show every row
            </a>
          </p>
        ) : null}
        {trace.truncated.spans ? (
          <p className="mt-1 text-[12.5px] text-fg-muted">
            Only the first {trace.spanCount.toLocaleString("en-US")} spans of this trace are read.
          </p>
        ) : null}
      </section>
      <Logs trace={trace} spanHref={spanHref} allLogsHref={allLogsHref} allLogs={allLogs} />
      <Metrics trace={trace} />
      <Replays trace={trace} replayHref={replayHref} />
    </>
  );
}
