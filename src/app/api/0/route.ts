import { apiRoute, requireViewer } from "@/server/http/api-route";

// `sentry-cli info` validates its token here.
export const GET = apiRoute("signed-in", async (req) => {
  const viewer = await requireViewer(req);
  return Response.json({
    version: "0",
    auth: { scopes: viewer.scopes ?? [] },
    user: { id: viewer.userId, email: viewer.email, name: viewer.name },
  });
});
export const dynamic = "force-dynamic";
