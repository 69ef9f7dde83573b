import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryLinkHeader } from "@/server/http/pagination";

type P = { org: string };

// Sentry's trace-item attribute names: ?itemType=spans|logs&attributeType=number|string|boolean
// → [{key, name, attributeSource}], each a field the query API answers. One page.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const attributes = await services.discover.attributes(viewer, params.org, url.searchParams);
  return Response.json(attributes, { headers: { link: sentryLinkHeader(services.publicUrl, url, null) } });
});
export const dynamic = "force-dynamic";
