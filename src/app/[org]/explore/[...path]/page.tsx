import { notFound, redirect } from "next/navigation";
import { orNotFound, param, requireViewer, services, withQuery } from "../../../_lib/server";

type SearchParams = Record<string, string | string[] | undefined>;

/**
 * Sentry's explore links, as its clients print them (the MCP server, the `sentry` CLI), reached
 * through next.config.mjs's /organizations/{org}/explore/… redirect: a trace opens the trace page,
 * a pinned log the trace it belongs to at that log, a logs or discover query naming a trace that
 * trace, anything else the closest list (traces; discover's error queries: the issue search).
 */
export default async function ExploreRedirect({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; path: string[] }>;
  searchParams: Promise<SearchParams>;
}) {
  const { org, path } = await params;
  const sp = await searchParams;
  const o = encodeURIComponent(org);
  const [kind, sub, id] = path;
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) if (typeof v === "string") qs.set(k, v);
  const viewer = await requireViewer(withQuery(`/${o}/explore/${path.map(encodeURIComponent).join("/")}`, Object.fromEntries(qs)));
  const query = param(sp.query) ?? "";
  const traceInQuery = /(?:^|\s)trace(?:\.id)?:"?([0-9a-fA-F-]{32,36})"?/.exec(query)?.[1];
  if (kind === "traces" && sub === "trace" && id) redirect(`/${o}/traces/${encodeURIComponent(id)}`);
  if (traceInQuery) redirect(`/${o}/traces/${encodeURIComponent(traceInQuery.replace(/-/g, ""))}`);
  if (kind === "logs") {
    const pinned = param(sp.logsPinned);
    const found = pinned ? await orNotFound((await services()).tracePages.findLog(viewer, org, pinned)) : null;
    if (found) redirect(`/${o}/traces/${found.traceId}?logs=all#log-${found.key}`);
    redirect(`/${o}/traces`);
  }
  if (kind === "traces") redirect(`/${o}/traces`);
  if (kind === "discover") redirect(withQuery(`/${o}/issues`, { query: query || null }));
  notFound();
}
