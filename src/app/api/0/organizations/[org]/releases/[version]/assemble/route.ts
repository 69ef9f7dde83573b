import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

// Legacy release bundle (sentry-cli 2.x without artifact-bundle support): files matched by URL in the release.
export const POST = apiRoute<{ org: string; version: string }>("artifact.upload", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().artifacts.assembleRelease(viewer, params.org, params.version, await readJson(req)));
});
export const dynamic = "force-dynamic";
