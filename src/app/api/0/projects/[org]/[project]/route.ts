import { projectIdentityPatch } from "@/ingest/compat/project-update-body";
import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryProject } from "@/server/orgs/sentry-project";

// Sentry's project detail.
export const GET = apiRoute<{ org: string; project: string }>(async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const [project, org, ownership] = await Promise.all([
    services.projects.get(viewer, params.org, params.project),
    services.orgs.get(viewer, params.org),
    services.projects.ownership(viewer, params.org, params.project),
  ]);
  return Response.json(sentryProject(project, org, ownership));
});
// Sentry's project update: name, slug, platform (admins and owners); answers the project detail.
export const PUT = apiRoute<{ org: string; project: string }>(async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const body = await readJson(req);
  const identity = projectIdentityPatch(body);
  const project = await services.projects.rename(viewer, params.org, params.project, identity as Record<string, string>);
  const [org, ownership] = await Promise.all([
    services.orgs.get(viewer, params.org),
    services.projects.ownership(viewer, params.org, project.slug),
  ]);
  return Response.json(sentryProject(project, org, ownership));
});
export const dynamic = "force-dynamic";
