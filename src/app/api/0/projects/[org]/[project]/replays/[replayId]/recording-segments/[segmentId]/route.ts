import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string; replayId: string; segmentId: string };

// One recording segment: Sentry's metadata, or with `?download` its rrweb events (JSON, inflated
// in the thread pool). With `&encoding=zlib` (Errata's, for its player's first frame) the stored
// zlib bytes as they are: no work on the server, a tenth of the bytes; the browser inflates them.
// (Next.js drops a route's Content-Encoding header, so the coding is the client's to undo.)
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const seg = await app().replays.segment(viewer, params.org, params.project, params.replayId, params.segmentId);
  if (!url.searchParams.has("download")) return Response.json({ data: seg.meta });
  const headers = { "cache-control": "private, no-store" };
  if (url.searchParams.get("encoding") === "zlib")
    return new Response(new Uint8Array(seg.zlib), { headers: { ...headers, "content-type": "application/octet-stream" } });
  return new Response(new Uint8Array(await seg.json()), { headers: { ...headers, "content-type": "application/json" } });
});
export const dynamic = "force-dynamic";
