import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath } from "@/server/issues/rest-mutations";

// Sentry's tag values of an issue, most frequent first (up to 1,000).
export const GET = apiRoute<{ org: string; issueId: string; key: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(
    await app().eventApi.issueTagValues(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId), params.key),
  );
});
export const dynamic = "force-dynamic";
