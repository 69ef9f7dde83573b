import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryLinkHeader } from "@/server/http/pagination";

type P = { org: string };

// Sentry's query API: ?dataset=errors|spans|logs&field=title&field=count()&query=…&sort=-count()
// &statsPeriod=24h&project=1&per_page=50&cursor=0:50:0 → {data, meta}; the next page in `Link`.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const page = await services.discover.events(viewer, params.org, url.searchParams);
  const headers = new Headers({ link: sentryLinkHeader(services.publicUrl, url, page.nextCursor) });
  // The scan cap was reached: aggregates count only the newest rows read.
  if (page.truncated) headers.set("x-errata-truncated", "1");
  return Response.json({ data: page.data, meta: page.meta }, { headers });
});
export const dynamic = "force-dynamic";
