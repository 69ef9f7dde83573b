import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string; itemId: string };

// Sentry's one log or span with all its attributes (`sentry log view`, `sentry span view`):
// ?trace_id=…&item_type=logs|spans
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const q = new URL(req.url).searchParams;
  return Response.json(await app().traceApi.traceItem(viewer, params.org, params.project, params.itemId, q));
});
export const dynamic = "force-dynamic";
