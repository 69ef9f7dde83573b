import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";

// {checksum, chunks, projects, version?, dist?} → {state, missingChunks, detail} (reference §8.3).
export const POST = apiRoute<{ org: string }>("artifact.upload", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().artifacts.assembleBundle(viewer, params.org, await readJson(req)));
});
export const dynamic = "force-dynamic";
