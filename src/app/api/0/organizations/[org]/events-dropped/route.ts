import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// Sentry's accepted and dropped volume per outcome and reason (`sentry event analytics`), read
// from the outcome counters: ?dataset=errors|spans|logs|tracemetrics&statsPeriod=24h&project=1.
export const GET = apiRoute<{ org: string }>("org.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().statsApi.eventsDropped(viewer, params.org, new URL(req.url).searchParams));
});
export const dynamic = "force-dynamic";
