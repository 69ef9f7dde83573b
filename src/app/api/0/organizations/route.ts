import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryOrg } from "@/server/sentry-api/shapes/member";

// Sentry: the organizations the caller belongs to.
export const GET = apiRoute("signed-in", async (req) => {
  const viewer = await requireViewer(req);
  const services = app();
  return Response.json(
    (await services.orgs.listForViewer(viewer)).map((o) => sentryOrg(o, services.publicUrl, req.headers.get("user-agent"))),
  );
});
export const dynamic = "force-dynamic";
