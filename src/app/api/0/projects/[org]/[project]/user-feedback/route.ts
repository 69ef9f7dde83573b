import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string };

// Sentry's user reports of a project, newest first.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().userFeedbackApi.list(viewer, params.org, params.project));
});

// Sentry's user report: {event_id, name, email, comments}; the latest report per event is kept.
export const POST = apiRoute<P>("feedback.create", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().userFeedbackApi.create(viewer, params.org, params.project, await readJson(req)));
});
export const dynamic = "force-dynamic";
