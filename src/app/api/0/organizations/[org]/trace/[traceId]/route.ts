import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; traceId: string };

// Sentry's trace: the span tree across the org's projects with its errors (`sentry trace view`,
// `sentry span view`, the MCP server's get_trace_details).
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().traceApi.trace(viewer, params.org, params.traceId, new URL(req.url).searchParams));
});
export const dynamic = "force-dynamic";
