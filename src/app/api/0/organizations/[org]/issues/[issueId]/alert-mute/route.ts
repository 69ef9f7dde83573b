import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath } from "@/server/issues/rest-mutations";

type P = { org: string; issueId: string };

// Errata's own: mute an issue's alerts (`{"until": epoch ms}` or `{}` for until unmuted), read, unmute.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().alerts.issueMute(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId)));
});

export const PUT = apiRoute<P>("alert.mute", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = (await readJson(req)) as { until?: unknown } | null;
  const until = typeof body?.until === "number" ? body.until : null;
  await app().alerts.muteIssue(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId), until);
  return Response.json(await app().alerts.issueMute(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId)));
});

export const DELETE = apiRoute<P>("alert.mute", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().alerts.unmuteIssue(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId));
  return new Response(null, { status: 204 });
});
export const dynamic = "force-dynamic";
