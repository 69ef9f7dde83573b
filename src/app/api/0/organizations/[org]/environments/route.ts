import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// Sentry's organization environments: those the events of the caller's projects carried.
export const GET = apiRoute<{ org: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const environments = await app().projects.environments(viewer, params.org);
  return Response.json(environments.map((name, i) => ({ id: String(i + 1), name })));
});
export const dynamic = "force-dynamic";
