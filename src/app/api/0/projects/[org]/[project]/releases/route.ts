import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

// sentry-cli 2.x creates single-project releases here.
export const POST = apiRoute<{ org: string; project: string }>(async (req, { params }) => {
  const viewer = await requireViewer(req);
  const { created, release } = await app().artifacts.createRelease(viewer, params.org, await readJson(req), params.project);
  return Response.json(release, { status: created ? 201 : 208 });
});
export const dynamic = "force-dynamic";
