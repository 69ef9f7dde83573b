import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

// Uptime (HTTP) monitors: list with state and availability, create.
export const GET = apiRoute<{ org: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().uptime.list(viewer, params.org));
});

export const POST = apiRoute<{ org: string }>("monitor.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().uptime.create(viewer, params.org, await readJson(req)), { status: 201 });
});
export const dynamic = "force-dynamic";
