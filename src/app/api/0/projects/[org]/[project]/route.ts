import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryProjectDetail } from "@/server/sentry-api/shapes/project";

type P = { org: string; project: string };

async function detail(req: Request, org: string, slug: string) {
  const viewer = await requireViewer(req);
  const services = app();
  const [project, orgSummary, own, settings, grouping] = await Promise.all([
    services.projects.get(viewer, org, slug),
    services.orgs.get(viewer, org),
    services.projects.ownership(viewer, org, slug),
    services.projects.settings(viewer, org, slug),
    services.projects.groupingRules(viewer, org, slug),
  ]);
  const { access, facts, memberOf } = await services.projects.sentryFacts(viewer, org, [project.id]);
  return { ...sentryProjectDetail(project, orgSummary, { access, memberOf, facts: facts.get(project.id), own }, settings), ...grouping };
}

// Sentry's project detail, with its grouping fields (fingerprintingRules, groupingEnhancements).
export const GET = apiRoute<P>("project.read", async (req, { params }) => Response.json(await detail(req, params.org, params.project)));

// Sentry's project update (admins and owners): grouping rules, name, slug, platform; answers the
// project detail under its (possibly new) slug.
export const PUT = apiRoute<P>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const slug = await app().projects.updateFromSentry(viewer, params.org, params.project, await readJson(req));
  return Response.json(await detail(req, params.org, slug));
});
// Sentry's project deletion (admins and owners): 204; its events, issues and keys go with it.
export const DELETE = apiRoute<P>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().projects.remove(viewer, params.org, params.project);
  return new Response(null, { status: 204 });
});
export const dynamic = "force-dynamic";
