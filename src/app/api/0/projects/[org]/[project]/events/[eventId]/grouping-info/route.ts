import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string; eventId: string };

// Sentry's grouping info of an event: its variants, hashes and the values that grouped it.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().eventApi.groupingInfo(viewer, params.org, params.project, params.eventId));
});
export const dynamic = "force-dynamic";
