import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryProject } from "@/server/orgs/sentry-project";

// Sentry's project detail.
export const GET = apiRoute<{ org: string; project: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const project = await services.projects.get(viewer, params.org, params.project);
  const org = await services.orgs.get(viewer, params.org);
  return Response.json(sentryProject(project, org));
});
export const dynamic = "force-dynamic";
