import { projectIdentityPatch } from "@/ingest/compat/project-update-body";
import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryProject } from "@/server/orgs/sentry-project";

type P = { org: string; project: string };

async function detail(req: Request, org: string, slug: string) {
  const viewer = await requireViewer(req);
  const services = app();
  const [project, orgSummary, ownership, grouping] = await Promise.all([
    services.projects.get(viewer, org, slug),
    services.orgs.get(viewer, org),
    services.projects.ownership(viewer, org, slug),
    services.projects.groupingRules(viewer, org, slug),
  ]);
  return { ...sentryProject(project, orgSummary, ownership), ...grouping };
}

// Sentry's project detail, with its grouping fields (fingerprintingRules, groupingEnhancements).
export const GET = apiRoute<P>("project.read", async (req, { params }) => Response.json(await detail(req, params.org, params.project)));

// Sentry's project update (admins and owners): the grouping rules, then name, slug and platform;
// answers the project detail under its (possibly new) slug.
export const PUT = apiRoute<P>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const body = await readJson(req);
  const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const grouping = b.fingerprintingRules !== undefined || b.groupingEnhancements !== undefined;
  if (grouping) await services.projects.updateGroupingRules(viewer, params.org, params.project, body);
  // rename authorizes (project.write) even when the body changes nothing else.
  const identity = projectIdentityPatch(body);
  const slug =
    Object.keys(identity).length > 0 || !grouping
      ? (await services.projects.rename(viewer, params.org, params.project, identity as Record<string, string>)).slug
      : params.project;
  return Response.json(await detail(req, params.org, slug));
});
export const dynamic = "force-dynamic";
