import { AppError } from "@/core/errors";
import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryTeam } from "@/server/sentry-api/shapes/member";

// Sentry's team detail and delete (GET/DELETE /api/0/teams/{org}/{team}/), over the same service
// as the settings page: every member reads, admins and owners delete.
export const GET = apiRoute<{ org: string; team: string }>("team.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const team = (await app().teams.page(viewer, params.org)).teams.find((t) => t.slug === params.team);
  if (!team) throw new AppError("not_found", "Team not found.");
  return Response.json(sentryTeam(team));
});

export const DELETE = apiRoute<{ org: string; team: string }>("team.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().teams.remove(viewer, params.org, params.team);
  return new Response(null, { status: 204 });
});
export const dynamic = "force-dynamic";
