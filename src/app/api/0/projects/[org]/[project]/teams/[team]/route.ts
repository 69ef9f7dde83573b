import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// Sentry: give the project to a team (POST) or take it away (DELETE).
export const POST = apiRoute<{ org: string; project: string; team: string }>("team.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().teams.setProject(viewer, params.org, params.team, params.project, true);
  return Response.json({ slug: params.project }, { status: 201 });
});

export const DELETE = apiRoute<{ org: string; project: string; team: string }>("team.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().teams.setProject(viewer, params.org, params.team, params.project, false);
  return Response.json({ slug: params.project });
});
export const dynamic = "force-dynamic";
