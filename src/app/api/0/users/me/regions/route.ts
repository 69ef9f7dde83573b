import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// Sentry's regions of the caller (`sentry auth login --url … --token …` validates its token here):
// Errata is one region, at its public URL.
export const GET = apiRoute("signed-in", async (req) => {
  await requireViewer(req);
  return Response.json({ regions: [{ name: "default", url: app().publicUrl }] });
});
export const dynamic = "force-dynamic";
