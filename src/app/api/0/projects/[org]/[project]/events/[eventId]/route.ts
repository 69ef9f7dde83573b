import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// Sentry's project event: the whole event, its neighbours in the issue and the user's report on it.
export const GET = apiRoute<{ org: string; project: string; eventId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().eventApi.projectEvent(viewer, params.org, params.project, params.eventId));
});
export const dynamic = "force-dynamic";
