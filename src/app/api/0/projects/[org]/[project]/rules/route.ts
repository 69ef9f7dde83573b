import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { fromSentryRule, sentryRule } from "@/server/sentry-api/shapes/alert-rule";

type P = { org: string; project: string };

// Sentry's issue alert rules: list and create.
export const GET = apiRoute<P>("alert.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const o = await app().alerts.overview(viewer, params.org, params.project);
  return Response.json(o.rules.map(sentryRule));
});

export const POST = apiRoute<P>("alert.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const rule = await app().alerts.createRule(viewer, params.org, params.project, fromSentryRule(await readJson(req)));
  return Response.json(sentryRule(rule), { status: 201 });
});
export const dynamic = "force-dynamic";
