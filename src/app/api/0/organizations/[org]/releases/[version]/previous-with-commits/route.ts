import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// set-commits asks where the last release's commits ended; Sentry answers `{}` when none has any.
export const GET = apiRoute<{ org: string; version: string }>("release.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json((await app().releaseApi.previousWithCommits(viewer, params.org, params.version)) ?? {});
});
export const dynamic = "force-dynamic";
