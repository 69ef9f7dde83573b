import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryLinkHeader } from "@/server/http/pagination";

// Sentry's logs of a trace (`sentry trace logs`): ?traceId=…&sort=-timestamp&per_page=…&cursor=…
export const GET = apiRoute<{ org: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const page = await services.traceApi.traceLogs(viewer, params.org, url.searchParams);
  const headers = { link: sentryLinkHeader(services.publicUrl, url, page.nextCursor) };
  return Response.json({ data: page.data, meta: page.meta }, { headers });
});
export const dynamic = "force-dynamic";
