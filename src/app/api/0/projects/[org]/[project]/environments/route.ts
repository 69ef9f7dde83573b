import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// Sentry's project environments: the environments its events carried.
export const GET = apiRoute<{ org: string; project: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const environments = await app().projects.environments(viewer, params.org, params.project);
  return Response.json(environments.map((name, i) => ({ id: String(i + 1), name, isHidden: false })));
});
export const dynamic = "force-dynamic";
