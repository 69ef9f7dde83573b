import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryUser } from "@/server/sentry-api/shapes/member";

// Sentry's "who am I" (the MCP server's whoami, the `sentry` CLI's `auth whoami`): the caller's user.
export const GET = apiRoute("signed-in", async (req) => Response.json(sentryUser(await requireViewer(req))));
export const dynamic = "force-dynamic";
