import { isAppError } from "@/core/errors";
import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// sentry-cli chunk upload (reference §8.3): the options, then multipart chunks named by sha1.
export const GET = apiRoute<{ org: string }>("artifact.upload", async (req, { params }) => {
  const viewer = await requireViewer(req);
  return Response.json(await app().artifacts.chunkUploadOptions(viewer, params.org));
});

export const POST = apiRoute<{ org: string }>("artifact.upload", async (req, { params }) => {
  const viewer = await requireViewer(req);
  try {
    await app().artifacts.uploadChunks(viewer, params.org, req);
  } catch (err) {
    // Sentry's own shape and strings ("Chunk size too large", "Request too large", "Too many chunks").
    if (isAppError(err) && err.code === "upload_rejected") return Response.json({ error: err.message }, { status: 400 });
    throw err;
  }
  return new Response(null, { status: 200 });
});
export const dynamic = "force-dynamic";
