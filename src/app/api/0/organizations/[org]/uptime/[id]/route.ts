import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// One uptime check: state, availability, the last 24 h of response times and the latest results.
export const GET = apiRoute<{ org: string; id: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().uptime.get(viewer, params.org, Number(params.id)));
});
export const dynamic = "force-dynamic";
