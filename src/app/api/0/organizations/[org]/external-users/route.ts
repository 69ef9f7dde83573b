import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

type P = { org: string };

// Sentry's external users: a CODEOWNERS name (`externalName`, `provider`) mapped to a user (`userId`).
export const POST = apiRoute<P>("team.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = await readJson(req);
  // this route maps to a user only
  const only = typeof body === "object" && body !== null ? { ...body, teamId: undefined, teamSlug: undefined } : body;
  const view = await app().codeowners.mapName(viewer, params.org, only);
  return Response.json(
    { id: view.id, externalName: view.externalName, provider: view.provider, userId: view.userId, integrationId: null },
    { status: 201 },
  );
});
export const dynamic = "force-dynamic";
