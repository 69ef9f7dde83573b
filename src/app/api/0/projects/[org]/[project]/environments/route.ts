import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// Sentry's project environments: the environments its events carried.
export const GET = apiRoute<{ org: string; project: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  await services.projects.get(viewer, params.org, params.project);
  const { environments } = await services.issueStream.filterOptions(viewer, params.org, { project: params.project });
  return Response.json(environments.map((name, i) => ({ id: String(i + 1), name, isHidden: false })));
});
export const dynamic = "force-dynamic";
