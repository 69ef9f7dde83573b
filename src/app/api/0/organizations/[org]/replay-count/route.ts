import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string };

// Replays per issue (`query=issue.id:[1,2]`) or per replay id, as counts or, with `returnIds`, ids:
// what Sentry's issue list shows and what the MCP server and the CLI ask for an issue's replays.
export const GET = apiRoute<P>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().replays.count(viewer, params.org, new URL(req.url).searchParams));
});
export const dynamic = "force-dynamic";
