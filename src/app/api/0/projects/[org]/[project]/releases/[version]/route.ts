import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string; version: string };

// Sentry's project-scoped release detail, update and delete: the organization's release (Errata's
// releases are organization-wide, as Sentry's), after checking the project is the caller's.
async function checkProject(req: Request, params: P) {
  const viewer = await requireViewer(req);
  // Through the releases service (release.read, the project among the visible ones), not project.read:
  // a CI token with project:releases only must reach its releases.
  await app().releaseApi.list(viewer, params.org, { project: params.project, limit: 1 });
  return viewer;
}

export const GET = apiRoute<P>("release.read", async (req, { params }) => {
  const viewer = await checkProject(req, params);
  return Response.json(await app().releaseApi.get(viewer, params.org, params.version));
});

export const PUT = apiRoute<P>("release.write", async (req, { params }) => {
  const viewer = await checkProject(req, params);
  return Response.json(await app().releaseApi.update(viewer, params.org, params.version, await readJson(req)));
});

export const DELETE = apiRoute<P>("release.delete", async (req, { params }) => {
  const viewer = await checkProject(req, params);
  await app().releaseApi.delete(viewer, params.org, params.version);
  return new Response(null, { status: 204 });
});
export const dynamic = "force-dynamic";
