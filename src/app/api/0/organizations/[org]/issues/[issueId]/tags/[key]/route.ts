import { AppError } from "@/core/errors";
import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath } from "@/server/issues/rest-mutations";

// Sentry's single tag of an issue: key, event count and top values.
export const GET = apiRoute<{ org: string; issueId: string; key: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const tags = await app().eventApi.issueTags(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId));
  const tag = tags.find((t) => t.key === params.key);
  if (!tag) throw new AppError("not_found", "Tag not found.");
  return Response.json(tag);
});
export const dynamic = "force-dynamic";
