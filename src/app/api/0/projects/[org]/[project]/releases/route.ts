import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { limitParam, sentryLinkHeader } from "@/server/http/pagination";

type P = { org: string; project: string };

// `sentry-cli releases list`: the project's releases, newest first, `?query=`, Link pagination.
export const GET = apiRoute<P>("release.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const page = await services.releaseApi.list(viewer, params.org, {
    project: params.project,
    query: url.searchParams.get("query"),
    cursor: url.searchParams.get("cursor"),
    limit: limitParam(url, 100, 100),
  });
  return Response.json(page.items, { headers: { link: sentryLinkHeader(services.publicUrl, url, page.nextCursor) } });
});

// sentry-cli 2.x creates single-project releases here.
export const POST = apiRoute<P>("release.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const { created, release } = await app().releaseApi.create(viewer, params.org, await readJson(req), params.project);
  return Response.json(release, { status: created ? 201 : 208 });
});
export const dynamic = "force-dynamic";
