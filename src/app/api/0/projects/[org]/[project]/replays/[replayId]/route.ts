import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string; replayId: string };

export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json({ data: await app().replays.sentryGet(viewer, params.org, params.replayId, params.project) });
});

// Deletes the replay: its rows, then its recording's blobs (Sentry answers 204).
export const DELETE = apiRoute<P>("replay.delete", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().replays.remove(viewer, params.org, params.project, params.replayId);
  return new Response(null, { status: 204 });
});
export const dynamic = "force-dynamic";
