import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string; channelId: string };

export const DELETE = apiRoute<P>("alert.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().alerts.deleteChannel(viewer, params.org, params.project, Number(params.channelId));
  return new Response(null, { status: 204 });
});
export const dynamic = "force-dynamic";
