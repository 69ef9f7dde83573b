import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; traceId: string };

// Sentry's trace counts: spans (per op), errors, logs, metric samples (the MCP server asks first).
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().traceApi.traceMeta(viewer, params.org, params.traceId, new URL(req.url).searchParams));
});
export const dynamic = "force-dynamic";
