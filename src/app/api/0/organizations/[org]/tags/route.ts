import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryLinkHeader } from "@/server/http/pagination";

type P = { org: string };

// Sentry's organization tag keys (query builders, Grafana's field list): [{key, name, totalValues}],
// one page; `project=` narrows to those projects.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const keys = await services.discover.tagKeys(viewer, params.org, url.searchParams);
  return Response.json(keys, { headers: { link: sentryLinkHeader(services.publicUrl, url, null) } });
});
export const dynamic = "force-dynamic";
