import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string };

// Sentry's chart series: ?yAxis=count()&yAxis=count_unique(user)&interval=1h&statsPeriod=24h&query=…
// → {data: [[unix, [{count}]], …], start, end} (keyed by axis when several are asked).
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const stats = await app().discover.stats(viewer, params.org, new URL(req.url).searchParams);
  const headers = new Headers();
  if (stats.truncated) headers.set("x-errata-truncated", "1");
  return Response.json(stats.body, { headers });
});
export const dynamic = "force-dynamic";
