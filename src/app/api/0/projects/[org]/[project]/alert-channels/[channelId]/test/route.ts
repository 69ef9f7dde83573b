import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string; channelId: string };

// "Send a test": answers with the delivery as recorded, including the remote's status and body.
export const POST = apiRoute<P>("alert.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().alerts.testChannel(viewer, params.org, params.project, Number(params.channelId)));
});
export const dynamic = "force-dynamic";
