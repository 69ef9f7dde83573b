import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryLinkHeader } from "@/server/http/pagination";

type P = { org: string };

// Sentry's replay list (the `sentry` CLI's `replay list`, the MCP server's replay search): `field`,
// `query`, `sort`, `statsPeriod`/`start`/`end`, `project`, `environment`, `per_page`, `cursor`.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const page = await services.replays.sentryList(viewer, params.org, url.searchParams);
  return Response.json({ data: page.data }, { headers: { link: sentryLinkHeader(services.publicUrl, url, page.next) } });
});
export const dynamic = "force-dynamic";
