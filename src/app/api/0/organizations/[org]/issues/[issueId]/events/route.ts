import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { limitParam, sentryLinkHeader } from "@/server/http/pagination";
import { issueIdFromPath } from "@/server/issues/rest-mutations";

// Sentry's issue events, newest first; `?full=true` answers whole events (entries, contexts…).
export const GET = apiRoute<{ org: string; issueId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const page = await services.eventApi.issueEvents(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId), {
    full: ["true", "1"].includes(url.searchParams.get("full") ?? ""),
    cursor: url.searchParams.get("cursor"),
    limit: limitParam(url, 100, 100),
  });
  return Response.json(page.items, { headers: { link: sentryLinkHeader(services.publicUrl, url, page.nextCursor) } });
});
export const dynamic = "force-dynamic";
