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
  const span = param((await searchParams).span)?.slice(0, 32) ?? "";
  const base = `/${encodeURIComponent(org)}/traces/${encodeURIComponent(traceId)}`;
  const viewer = await requireViewer(withQuery(base, { span }));
  const trace = await orNotFound((await services()).tracePages.trace(viewer, org, traceId, { span: span || null }));
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
        spanHref={(id) => `${withQuery(base, { span: id })}#span-${id}`}
        clearHref={base}
        // Session Replay's player is not part of this installation: replay ids are listed as text.
        replayHref={() => null}
      />
    </main>
  );
}
