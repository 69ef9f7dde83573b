import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import type { MonitorInput } from "@/server/monitors/cron";
import { monitorShape } from "@/server/sentry-api/shapes/monitor";

// `sentry-cli monitors list` and Sentry's "list an organization's monitors".
export const GET = apiRoute<{ org: string }>("project.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const project = new URL(req.url).searchParams.get("project") ?? undefined;
  const monitors = await app().monitors.list(viewer, params.org, { project });
  return Response.json(monitors.map(monitorShape));
});

export const POST = apiRoute<{ org: string }>("monitor.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const m = await app().monitors.create(viewer, params.org, (await readJson(req)) as MonitorInput);
  return Response.json(monitorShape(m), { status: 201 });
});
export const dynamic = "force-dynamic";
