import type { Metadata } from "next";
import Link from "next/link";
import { TraceView } from "@/ui/traces/trace-view";
import { orNotFound, param, requireViewer, services, withQuery } from "../../../_lib/server";

export const metadata: Metadata = { title: "Trace" };

type SearchParams = Record<string, string | string[] | undefined>;

/** One trace across the organization's projects: spans, errors on their spans, logs, metrics. */
export default async function TracePage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; traceId: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { org, traceId } = await params;
  const sp = await searchParams;
  const span = param(sp.span)?.slice(0, 32) ?? "";
  const expandText = param(sp.expand)?.slice(0, 1_000) ?? "";
  const expand = expandText
    .split(",")
    .filter((e) => /^[0-9a-f]{16}$/.test(e))
    .slice(0, 50);
  const all = param(sp.all) === "1";
  const allLogs = param(sp.logs) === "all";
  const base = `/${encodeURIComponent(org)}/traces/${encodeURIComponent(traceId)}`;
  const query = { span, expand: expand.join(","), all: all ? "1" : "", logs: allLogs ? "all" : "" };
  const viewer = await requireViewer(withQuery(base, query));
  const trace = await orNotFound((await services()).tracePages.trace(viewer, org, traceId, { span: span || null, expand, all }));
  return (
    <main className="mx-auto max-w-[1200px] px-4 py-4">
      <nav aria-label="Breadcrumb" className="mb-2 text-[12.5px] text-fg-muted">
        <Link href={`/${encodeURIComponent(org)}/traces`} className="hover:underline">
          Traces
        </Link>
      </nav>
      <TraceView
        org={org}
        trace={trace}
        // Relative to the page (a trace page draws up to 1,500 of these links).
        spanHref={(id) => `${withQuery("", { ...query, span: id })}#span-${id}`}
        expandHref={(id) => `${withQuery("", { ...query, expand: [...expand, id].join(",") })}#span-${id}`}
        allHref={withQuery(base, { ...query, all: "1" })}
        allLogsHref={`${withQuery(base, { ...query, logs: "all" })}#trace-logs`}
        allLogs={allLogs}
        clearHref={withQuery(base, { ...query, span: "" })}
        replayHref={(id) => (trace.storedReplayIds.includes(id) ? `/${encodeURIComponent(org)}/replays/${id}` : null)}
      />
    </main>
  );
}
