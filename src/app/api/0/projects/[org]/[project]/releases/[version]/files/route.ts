import { isAppError } from "@/core/errors";
import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

// Legacy release file (multipart `file`, `name`, `dist`, `header`); 409 when the name exists, as Sentry.
export const POST = apiRoute<{ org: string; project: string; version: string }>("artifact.upload", async (req, { params }) => {
  const viewer = await requireViewer(req);
  try {
    const file = await app().artifacts.uploadReleaseFile(viewer, params.org, params.project, params.version, req);
    if (!file) return Response.json({ detail: "A file matching this name already exists for the given release" }, { status: 409 });
    return Response.json(file, { status: 201 });
  } catch (err) {
    if (isAppError(err) && err.code === "upload_rejected") return Response.json({ error: err.message }, { status: 400 });
    throw err;
  }
});
export const dynamic = "force-dynamic";
