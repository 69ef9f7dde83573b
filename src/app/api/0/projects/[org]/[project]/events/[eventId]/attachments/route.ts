import { app } from "@/server/app-context";
import { sentryAttachment } from "@/server/events/ingest-data";
import { apiRoute, requireViewer } from "@/server/http/api-route";

export const GET = apiRoute<{ org: string; project: string; eventId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const list = await app().attachments.list(viewer, params.org, params.project, params.eventId);
  return Response.json(list.map(sentryAttachment));
});
export const dynamic = "force-dynamic";
