import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { fromSentryRule, sentryRule } from "@/server/sentry-api/shapes/alert-rule";

type P = { org: string; project: string; ruleId: string };

export const GET = apiRoute<P>("alert.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(sentryRule(await app().alerts.getRule(viewer, params.org, params.project, Number(params.ruleId))));
});

export const PUT = apiRoute<P>("alert.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const rule = await app().alerts.updateRule(
    viewer,
    params.org,
    params.project,
    Number(params.ruleId),
    fromSentryRule(await readJson(req)),
  );
  return Response.json(sentryRule(rule));
});

export const DELETE = apiRoute<P>("alert.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().alerts.deleteRule(viewer, params.org, params.project, Number(params.ruleId));
  return new Response(null, { status: 202 });
});
export const dynamic = "force-dynamic";
