import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import type { MonitorInput } from "@/server/monitors/cron";
import { monitorShape } from "@/server/sentry-api/shapes/monitor";

export const GET = apiRoute<{ org: string; slug: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(monitorShape(await app().monitors.get(viewer, params.org, params.slug)));
});

export const PUT = apiRoute<{ org: string; slug: string }>("monitor.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const m = await app().monitors.update(viewer, params.org, params.slug, (await readJson(req)) as MonitorInput);
  return Response.json(monitorShape(m));
});
export const dynamic = "force-dynamic";
