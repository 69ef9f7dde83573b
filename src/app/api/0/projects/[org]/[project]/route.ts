import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryProject } from "@/server/orgs/sentry-project";

type P = { org: string; project: string };

async function detail(req: Request, params: P) {
  const viewer = await requireViewer(req);
  const services = app();
  const project = await services.projects.get(viewer, params.org, params.project);
  const org = await services.orgs.get(viewer, params.org);
  const grouping = await services.projects.groupingRules(viewer, params.org, params.project);
  return { ...sentryProject(project, org), ...grouping };
}

// Sentry's project detail, with its grouping fields (fingerprintingRules, groupingEnhancements).
export const GET = apiRoute<P>("project.read", async (req, { params }) => Response.json(await detail(req, params)));

// Sentry's project update: the grouping fields (issue 29); name/slug/platform are issue 28's.
export const PUT = apiRoute<P>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().projects.updateGroupingRules(viewer, params.org, params.project, await readJson(req));
  return Response.json(await detail(req, params));
});
export const dynamic = "force-dynamic";
