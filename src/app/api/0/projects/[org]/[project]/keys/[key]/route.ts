import { AppError } from "@/core/errors";
import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryKey } from "@/server/sentry-api/shapes/member";

// Sentry addresses a key by its public key: {name?, isActive?}.
export const PUT = apiRoute<{ org: string; project: string; key: string }>("key.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = ((await readJson(req)) ?? {}) as { name?: unknown; isActive?: unknown };
  const s = app();
  const key = (await s.keys.list(viewer, params.org, params.project)).find((k) => k.publicKey === params.key);
  if (!key) throw new AppError("not_found", "Key not found.");
  const patch: { label?: string; active?: boolean } = {};
  if (typeof body.name === "string") patch.label = body.name;
  if (typeof body.isActive === "boolean") patch.active = body.isActive;
  const updated = await s.keys.update(viewer, params.org, params.project, key.id, patch);
  const project = await s.projects.get(viewer, params.org, params.project);
  return Response.json(sentryKey(updated, project.id));
});
export const dynamic = "force-dynamic";
