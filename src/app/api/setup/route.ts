import { app } from "@/server/app-context";
import { apiRoute, readJson } from "@/server/http/api-route";
import type { SetupInput } from "@/server/services";

// First run: create the owner account and organization. Refused (setup_done) once used.
export const POST = apiRoute("public", async (req) => {
  const input = (await readJson(req)) as SetupInput;
  const result = await app().setup.createOwner(input);
  return Response.json({ orgSlug: result.orgSlug });
});
export const dynamic = "force-dynamic";
