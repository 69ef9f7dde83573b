import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { checkInShape } from "@/server/sentry-api/shapes/monitor";

export const GET = apiRoute<{ org: string; slug: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const limit = Number(new URL(req.url).searchParams.get("per_page") ?? 100) || 100;
  const list = await app().monitors.checkIns(viewer, params.org, params.slug, { limit });
  return Response.json(list.map(checkInShape));
});
export const dynamic = "force-dynamic";
