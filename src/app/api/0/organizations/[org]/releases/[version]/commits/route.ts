import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// The commits of a release as set-commits stored them (newest first).
export const GET = apiRoute<{ org: string; version: string }>("release.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().releaseApi.commits(viewer, params.org, params.version));
});
export const dynamic = "force-dynamic";
