import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

// Sentry's "create a project" lives under its team: {name, platform?}; the project joins the team.
export const POST = apiRoute<{ org: string; team: string }>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = ((await readJson(req)) ?? {}) as { name?: unknown; platform?: unknown };
  const s = app();
  const p = await s.projects.create(viewer, params.org, {
    name: typeof body.name === "string" ? body.name : "",
    platform: typeof body.platform === "string" ? body.platform : "other",
  });
  await s.teams.setProject(viewer, params.org, params.team, p.slug, true);
  return Response.json({ id: String(p.id), slug: p.slug, name: p.name, platform: p.platform }, { status: 201 });
});
export const dynamic = "force-dynamic";
