import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string };

// Errata's own: the delivery log (newest first), optionally for one rule.
export const GET = apiRoute<P>("alert.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const rule = url.searchParams.get("rule");
  const ruleId = rule === null ? undefined : Number(rule);
  return Response.json(
    await app().alerts.deliveries(viewer, params.org, params.project, { ruleId, limit: Number(url.searchParams.get("limit") ?? 50) }),
  );
});
export const dynamic = "force-dynamic";
