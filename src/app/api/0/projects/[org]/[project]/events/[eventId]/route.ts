import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryEvent } from "@/server/issues/sentry-shapes";

export const GET = apiRoute<{ org: string; project: string; eventId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const ev = await app().events.get(viewer, params.org, params.project, params.eventId);
  return Response.json(sentryEvent(ev));
});
export const dynamic = "force-dynamic";
