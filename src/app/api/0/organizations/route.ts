import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryOrg } from "@/server/members/sentry-shapes";

// Sentry: the organizations the caller belongs to.
export const GET = apiRoute("signed-in", async (req) => {
  const viewer = await requireViewer(req);
  return Response.json((await app().orgs.listForViewer(viewer)).map(sentryOrg));
});
export const dynamic = "force-dynamic";
