import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string };

// Sentry's legacy project stats: `?stat=received|rejected|blacklisted&since&until&resolution=1h|1d`.
export const GET = apiRoute<P>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().statsApi.projectStats(viewer, params.org, params.project, new URL(req.url).searchParams));
});
export const dynamic = "force-dynamic";
