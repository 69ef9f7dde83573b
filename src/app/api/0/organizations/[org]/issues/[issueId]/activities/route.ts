import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath, sentryActivity } from "@/server/issues/rest-mutations";

// Sentry's `GET …/issues/{id}/activities/`: {"activity": [...]}, newest first.
export const GET = apiRoute<{ org: string; issueId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const items = await app().issueActions.activity(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId));
  return Response.json({ activity: items.map(sentryActivity) });
});

export const dynamic = "force-dynamic";
