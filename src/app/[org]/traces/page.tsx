import type { Metadata } from "next";
import Link from "next/link";
import { MetricSection, PERIODS, TraceFilters, TraceTable } from "@/ui/traces/trace-list";
import { orNotFound, param, requireViewer, services, withQuery } from "../../_lib/server";

export const metadata: Metadata = { title: "Traces" };

type SearchParams = Record<string, string | string[] | undefined>;

const PERIOD_MS: Record<string, number> = {
  "1h": 3_600_000,
  "24h": 86_400_000,
  "7d": 7 * 86_400_000,
  "14d": 14 * 86_400_000,
  "30d": 30 * 86_400_000,
};

/** Recent traces with filters (service, transaction, duration, with errors) and the metrics' chart. */
export default async function TracesPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { org } = await params;
  const sp = await searchParams;
  const values = {
    service: param(sp.service)?.slice(0, 100) ?? "",
    transaction: param(sp.transaction)?.slice(0, 200) ?? "",
    minDuration: param(sp.minDuration)?.slice(0, 12) ?? "",
    hasErrors: param(sp.hasErrors) === "1",
    period: PERIODS.some(([p]) => p === param(sp.period)) ? (param(sp.period) as string) : "24h",
    metric: param(sp.metric)?.slice(0, 256) ?? "",
  };
  const cursor = Math.max(0, Math.min(100_000, Number(param(sp.cursor)) || 0));
  const base = `/${encodeURIComponent(org)}/traces`;
  const query = { ...values, hasErrors: values.hasErrors ? "1" : "" };
  const viewer = await requireViewer(withQuery(base, { ...query, cursor: cursor ? String(cursor) : "" }));
  const minDuration = Number(values.minDuration);
  const list = await orNotFound(
    (await services()).tracePages.list(
      viewer,
      org,
      {
        service: values.service || undefined,
        transaction: values.transaction || undefined,
        minDuration: values.minDuration && Number.isFinite(minDuration) && minDuration > 0 ? minDuration : undefined,
        hasErrors: values.hasErrors,
        period: PERIOD_MS[values.period] as number,
        cursor,
      },
      values.metric || undefined,
    ),
  );
  const filtered = values.service || values.transaction || values.minDuration || values.hasErrors;
  return (
    <main className="mx-auto max-w-[1200px] px-4 py-4">
      <header className="mb-2 flex flex-wrap items-baseline gap-3">
        <h1 className="text-[18px] font-semibold">Traces</h1>
        <p className="text-[12.5px] text-fg-muted">
          Requests your SDKs traced, across projects; open one to see its spans, errors and logs.
        </p>
      </header>
      <TraceFilters action={base} list={list} values={values} />
      <MetricSection list={list} metricHref={(name) => withQuery(base, { ...query, metric: name })} />
      {list.items.length > 0 ? (
        <TraceTable org={org} list={list} now={Date.now()} />
      ) : (
        <section className="rounded-md border border-border px-6 py-6" aria-labelledby="no-traces">
          <h2 id="no-traces" className="text-[15px] font-semibold">
            {filtered || cursor ? "No traces match" : "No traces yet"}
          </h2>
          <p className="mt-1 max-w-prose text-fg-muted">
            {filtered || cursor
              ? "Nothing in this period matches these filters. Widen the period or clear a filter."
              : "Traces appear when an SDK sends spans: set tracesSampleRate (and enableLogs: true for logs) in Sentry.init."}
          </p>
        </section>
      )}
      <nav aria-label="Pages" className="mt-3 flex justify-end gap-2">
        {cursor ? (
          <Link href={withQuery(base, query)} className="btn btn-sm">
            Newest
          </Link>
        ) : null}
        {list.next !== null ? (
          <Link href={withQuery(base, { ...query, cursor: String(list.next) })} className="btn btn-sm">
            Older →
          </Link>
        ) : null}
      </nav>
    </main>
  );
}
