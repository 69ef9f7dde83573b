import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string };

// Sentry's project CODEOWNERS files: `raw` and an optional `codeMappingId`; unmatched names in `errors`.
export const GET = apiRoute<P>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().codeowners.list(viewer, params.org, params.project));
});

export const POST = apiRoute<P>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const { created, file } = await app().codeowners.save(viewer, params.org, params.project, await readJson(req));
  return Response.json(file, { status: created ? 201 : 200 });
});
export const dynamic = "force-dynamic";
