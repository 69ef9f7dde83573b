import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { limitParam, sentryLinkHeader } from "@/server/http/pagination";

// Sentry's org releases: `?query=` (version contains), `?project=` (a project id or slug), Link pagination.
export const GET = apiRoute<{ org: string }>("release.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const page = await services.releaseApi.list(viewer, params.org, {
    project: url.searchParams.get("project") ?? undefined,
    query: url.searchParams.get("query"),
    cursor: url.searchParams.get("cursor"),
    limit: limitParam(url, 100, 100),
  });
  return Response.json(page.items, { headers: { link: sentryLinkHeader(services.publicUrl, url, page.nextCursor) } });
});

// `sentry-cli releases new` (also before uploading release files, reference §8.7), `archive`, `restore`.
export const POST = apiRoute<{ org: string }>("release.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const { created, release } = await app().releaseApi.create(viewer, params.org, await readJson(req));
  // Sentry answers 208 when the release already existed.
  return Response.json(release, { status: created ? 201 : 208 });
});
export const dynamic = "force-dynamic";
