import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// The JS `sentry` CLI asks here first and sends everything after to `links.regionUrl` (our own URL).
export const GET = apiRoute<{ org: string }>("org.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().artifacts.orgDetails(viewer, params.org, req.headers.get("user-agent")));
});
export const dynamic = "force-dynamic";
