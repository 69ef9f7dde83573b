import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string };

// Sentry's usage stats: `?field=sum(quantity)&groupBy=outcome&groupBy=category&statsPeriod=14d&interval=1d`.
export const GET = apiRoute<P>("org.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().statsApi.orgStatsV2(viewer, params.org, new URL(req.url).searchParams));
});
export const dynamic = "force-dynamic";
