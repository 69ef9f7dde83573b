import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryLinkHeader } from "@/server/http/pagination";
import { sentryProject } from "@/server/sentry-api/shapes/project";

// `sentry-cli projects list`: the organization's projects in Sentry's shape (one page: an
// organization's projects are few).
export const GET = apiRoute<{ org: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const org = await services.orgs.get(viewer, params.org);
  const projects = await services.projects.list(viewer, params.org);
  const { access, facts, memberOf } = await services.projects.sentryFacts(
    viewer,
    params.org,
    projects.map((p) => p.id),
  );
  return Response.json(
    projects.map((p) => sentryProject(p, org, { access, memberOf, facts: facts.get(p.id) })),
    { headers: { link: sentryLinkHeader(services.publicUrl, new URL(req.url), null) } },
  );
});
export const dynamic = "force-dynamic";
