import { app } from "@/server/app-context";
import { apiRoute, readJson } from "@/server/http/api-route";

// Sets the new password from a mailed link (public; the link's secret is the authorization).
export const POST = apiRoute<{ token: string }>("public", async (req, { params }) => {
  const body = (await readJson(req)) as { password?: unknown } | null;
  return Response.json(await app().passwordReset.reset(params.token, body?.password));
});
export const dynamic = "force-dynamic";
