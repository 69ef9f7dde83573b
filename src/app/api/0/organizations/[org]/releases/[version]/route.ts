import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

type P = { org: string; version: string };

// `sentry-cli releases info`.
export const GET = apiRoute<P>("release.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().releaseApi.get(viewer, params.org, params.version));
});

// `releases finalize` (dateReleased), `set-commits` (commits or refs), ref/url/status.
export const PUT = apiRoute<P>("release.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().releaseApi.update(viewer, params.org, params.version, await readJson(req)));
});

// `releases delete`: 204 like Sentry.
export const DELETE = apiRoute<P>("release.delete", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().releaseApi.delete(viewer, params.org, params.version);
  return new Response(null, { status: 204 });
});
export const dynamic = "force-dynamic";
