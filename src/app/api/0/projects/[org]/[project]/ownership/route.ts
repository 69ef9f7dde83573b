import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string };

// Sentry's project ownership: the rules as written, fallthrough and auto-assignment.
export const GET = apiRoute<P>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json((await app().ownership.get(viewer, params.org, params.project)).settings);
});

export const PUT = apiRoute<P>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().ownership.update(viewer, params.org, params.project, await readJson(req)));
});
export const dynamic = "force-dynamic";
