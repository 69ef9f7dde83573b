import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

// Legacy source-map flow (reference §8.7): `sentry-cli releases new` before uploading release files.
export const POST = apiRoute<{ org: string }>(async (req, { params }) => {
  const viewer = await requireViewer(req);
  const { created, release } = await app().artifacts.createRelease(viewer, params.org, await readJson(req));
  // Sentry answers 208 when the release already existed.
  return Response.json(release, { status: created ? 201 : 208 });
});
export const dynamic = "force-dynamic";
