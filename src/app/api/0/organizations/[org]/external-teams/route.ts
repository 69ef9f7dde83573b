import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

type P = { org: string };

// Sentry's external teams: a CODEOWNERS name (`externalName`, `provider`) mapped to a team (`teamId`).
export const POST = apiRoute<P>("team.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = await readJson(req);
  // this route maps to a team only
  const only = typeof body === "object" && body !== null ? { ...body, userId: undefined, userEmail: undefined } : body;
  const view = await app().codeowners.mapName(viewer, params.org, only);
  return Response.json(
    { id: view.id, externalName: view.externalName, provider: view.provider, teamId: view.teamId, integrationId: null },
    { status: 201 },
  );
});
export const dynamic = "force-dynamic";
