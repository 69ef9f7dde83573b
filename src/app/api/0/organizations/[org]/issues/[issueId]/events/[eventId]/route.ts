import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath } from "@/server/issues/rest-mutations";

// Sentry's issue event: `latest`, `oldest`, `recommended` or an event id, with previousEventID/nextEventID.
export const GET = apiRoute<{ org: string; issueId: string; eventId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const issueId = await issueIdFromPath(viewer, params.org, params.issueId);
  return Response.json(await app().eventApi.issueEvent(viewer, params.org, issueId, params.eventId));
});
export const dynamic = "force-dynamic";
