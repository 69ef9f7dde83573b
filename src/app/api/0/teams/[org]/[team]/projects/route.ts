import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryLinkHeader } from "@/server/http/pagination";
import { sentryProject } from "@/server/sentry-api/shapes/project";

type P = { org: string; team: string };

// Sentry's team projects (Grafana's team → projects picker): the team's projects the caller sees,
// in the project list's shape with the team as owner. One page.
export const GET = apiRoute<P>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const { org, team, projects } = await services.projects.listOfTeam(viewer, params.org, params.team);
  const { access, facts, memberOf } = await services.projects.sentryFacts(
    viewer,
    params.org,
    projects.map((p) => p.id),
  );
  return Response.json(
    projects.map((p) => sentryProject(p, org, { access, memberOf, facts: facts.get(p.id), own: { teams: [team], firstEvent: null } })),
    { headers: { link: sentryLinkHeader(services.publicUrl, new URL(req.url), null) } },
  );
});

// Sentry's "create a project" lives under its team: {name, platform?}. An unknown team is a 404
// with nothing written; the project joins the team in the same transaction.
export const POST = apiRoute<P>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = ((await readJson(req)) ?? {}) as { name?: unknown; platform?: unknown };
  const p = await app().projects.createInTeam(viewer, params.org, params.team, {
    name: typeof body.name === "string" ? body.name : "",
    platform: typeof body.platform === "string" ? body.platform : "other",
  });
  return Response.json({ id: String(p.id), slug: p.slug, name: p.name, platform: p.platform }, { status: 201 });
});
export const dynamic = "force-dynamic";
