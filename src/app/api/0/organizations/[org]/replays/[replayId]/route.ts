import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; replayId: string };

// One replay in Sentry's shape (`{data: …}`), found in any project of the org the caller sees.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json({ data: await app().replays.sentryGet(viewer, params.org, params.replayId) });
});
export const dynamic = "force-dynamic";
