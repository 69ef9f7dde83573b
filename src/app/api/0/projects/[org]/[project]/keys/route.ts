import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryKey } from "@/server/sentry-api/shapes/member";

export const GET = apiRoute<{ org: string; project: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const s = app();
  const project = await s.projects.get(viewer, params.org, params.project);
  return Response.json((await s.keys.list(viewer, params.org, params.project)).map((k) => sentryKey(k, project.id)));
});

// Sentry: {name}.
export const POST = apiRoute<{ org: string; project: string }>("key.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = ((await readJson(req)) ?? {}) as { name?: unknown };
  const s = app();
  const key = await s.keys.create(viewer, params.org, params.project, { label: typeof body.name === "string" ? body.name : "" });
  const project = await s.projects.get(viewer, params.org, params.project);
  return Response.json(sentryKey(key, project.id), { status: 201 });
});
export const dynamic = "force-dynamic";
