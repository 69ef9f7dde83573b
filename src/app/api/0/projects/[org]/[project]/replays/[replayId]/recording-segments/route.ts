import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryLinkHeader } from "@/server/http/pagination";

type P = { org: string; project: string; replayId: string };

// The recording: the segments' rrweb events as `[[…segment 0…], […segment 1…]]`, streamed a
// segment at a time (the player draws its first frame from the first one), as Sentry answers it
// today whether or not `?download` is given (the `sentry` CLI omits it, the MCP server sends it).
// Paged by `per_page` and `cursor` with Sentry's Link header.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const q = url.searchParams;
  const perPage = q.get("per_page") === null ? null : Number(q.get("per_page"));
  const page = await services.replays.segments(viewer, params.org, params.project, params.replayId, { cursor: q.get("cursor"), perPage });
  const link = sentryLinkHeader(services.publicUrl, url, page.next);
  return new Response(page.download(), { headers: { "content-type": "application/json", link, "cache-control": "private, no-store" } });
});
export const dynamic = "force-dynamic";
