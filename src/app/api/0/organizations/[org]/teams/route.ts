import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryTeam } from "@/server/sentry-api/shapes/member";

export const GET = apiRoute<{ org: string }>("team.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json((await app().teams.page(viewer, params.org)).teams.map(sentryTeam));
});

// Sentry: {name} (or {slug}).
export const POST = apiRoute<{ org: string }>("team.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = ((await readJson(req)) ?? {}) as { name?: unknown; slug?: unknown };
  const name = typeof body.name === "string" ? body.name : typeof body.slug === "string" ? body.slug : "";
  return Response.json(sentryTeam(await app().teams.create(viewer, params.org, { name })), { status: 201 });
});
export const dynamic = "force-dynamic";
