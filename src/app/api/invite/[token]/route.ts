import { app } from "@/server/app-context";
import { CLIENT_IP_HEADER } from "@/server/auth/requests";
import { apiRoute, readJson } from "@/server/http/api-route";

// Accepts an invitation (public): signed in, that account joins; otherwise a new account is made
// with the name and password in the body. Answers the org to land in.
export const POST = apiRoute<{ token: string }>("public", async (req, { params }) => {
  const s = app();
  const viewer = await s.session.viewerFromHeaders(req.headers);
  const body = viewer ? {} : ((await readJson(req)) as { name?: unknown; password?: unknown });
  const input = {
    name: typeof body.name === "string" ? body.name : undefined,
    password: typeof body.password === "string" ? body.password : undefined,
  };
  const result = await s.members.accept(params.token, viewer, input, req.headers.get(CLIENT_IP_HEADER) ?? "unknown");
  return Response.json(result);
});
export const dynamic = "force-dynamic";
