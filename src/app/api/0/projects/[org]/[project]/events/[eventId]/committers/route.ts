import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string; eventId: string };

// Sentry's suspect commits of an event: its release's commits that touched its in-app frames.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().ownership.committers(viewer, params.org, params.project, params.eventId));
});
export const dynamic = "force-dynamic";
