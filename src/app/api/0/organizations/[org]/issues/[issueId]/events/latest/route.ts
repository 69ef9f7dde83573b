import { AppError } from "@/core/errors";
import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryEvent } from "@/server/issues/sentry-shapes";

export const GET = apiRoute<{ org: string; issueId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const ev = await app().events.latestForIssue(viewer, params.org, Number(params.issueId));
  if (!ev) throw new AppError("not_found", "This issue has no stored events.");
  return Response.json(sentryEvent(ev));
});
export const dynamic = "force-dynamic";
