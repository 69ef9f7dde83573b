import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

// Sentry's "create a project" lives under its team: {name, platform?}. An unknown team is a 404
// with nothing written; the project joins the team in the same transaction.
export const POST = apiRoute<{ org: string; team: string }>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = ((await readJson(req)) ?? {}) as { name?: unknown; platform?: unknown };
  const p = await app().projects.createInTeam(viewer, params.org, params.team, {
    name: typeof body.name === "string" ? body.name : "",
    platform: typeof body.platform === "string" ? body.platform : "other",
  });
  return Response.json({ id: String(p.id), slug: p.slug, name: p.name, platform: p.platform }, { status: 201 });
});
export const dynamic = "force-dynamic";
