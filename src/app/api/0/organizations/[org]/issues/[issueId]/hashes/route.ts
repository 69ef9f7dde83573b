import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath } from "@/server/issues/rest-mutations";

// Sentry's grouping hashes of an issue.
export const GET = apiRoute<{ org: string; issueId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().eventApi.issueHashes(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId)));
});
export const dynamic = "force-dynamic";
