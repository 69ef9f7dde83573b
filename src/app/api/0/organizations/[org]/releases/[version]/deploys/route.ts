import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

type P = { org: string; version: string };

// `sentry-cli deploys list`.
export const GET = apiRoute<P>("release.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().releaseApi.listDeploys(viewer, params.org, params.version));
});

// `sentry-cli deploys new -e <env>`: 201 with the deploy.
export const POST = apiRoute<P>("release.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().releaseApi.createDeploy(viewer, params.org, params.version, await readJson(req)), { status: 201 });
});
export const dynamic = "force-dynamic";
