import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath } from "@/server/issues/rest-mutations";

// Sentry's issue tags: each key with its event count and top values.
export const GET = apiRoute<{ org: string; issueId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().eventApi.issueTags(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId)));
});
export const dynamic = "force-dynamic";
