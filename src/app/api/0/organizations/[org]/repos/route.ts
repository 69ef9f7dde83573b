import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// Errata has no repository integrations: an empty list makes set-commits send the commits it
// reads from the local git tree (stored as sent) instead of refs to resolve.
export const GET = apiRoute<{ org: string }>("org.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().orgs.get(viewer, params.org);
  return Response.json([]);
});
export const dynamic = "force-dynamic";
