import { app } from "@/server/app-context";
import { apiRoute, readJson } from "@/server/http/api-route";

// "Forgot password" (public): the same 202 whether or not the address has an account.
export const POST = apiRoute("public", async (req) => {
  const body = (await readJson(req)) as { email?: unknown } | null;
  await app().passwordReset.request(body?.email);
  return Response.json({ ok: true }, { status: 202 });
});
export const dynamic = "force-dynamic";
