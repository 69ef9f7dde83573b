import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string };

// Errata's own: the project's alert channels (secrets never returned).
export const GET = apiRoute<P>("alert.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json((await app().alerts.overview(viewer, params.org, params.project)).channels);
});

export const POST = apiRoute<P>("alert.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().alerts.createChannel(viewer, params.org, params.project, await readJson(req)), { status: 201 });
});
export const dynamic = "force-dynamic";
