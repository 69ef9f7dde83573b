import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryTeam } from "@/server/sentry-api/shapes/member";

// Sentry's team membership: POST adds the member (`me`: the caller, as the JS `sentry` CLI sends
// after creating a team), DELETE removes them; both answer the team.
async function setMember(req: Request, params: { org: string; member: string; team: string }, on: boolean) {
  const viewer = await requireViewer(req);
  const userId = params.member === "me" ? viewer.userId : params.member;
  const team = await app().teams.setMember(viewer, params.org, params.team, userId, on);
  return Response.json(sentryTeam(team), { status: on ? 201 : 200 });
}

type Params = { org: string; member: string; team: string };
export const POST = apiRoute<Params>("team.write", (req, { params }) => setMember(req, params, true));
export const DELETE = apiRoute<Params>("team.write", (req, { params }) => setMember(req, params, false));
export const dynamic = "force-dynamic";
