import { app } from "@/server/app-context";
import { attachmentDownloadHeaders, sentryAttachment } from "@/server/events/ingest-data";
import { apiRoute, requireViewer } from "@/server/http/api-route";

/** Sentry's path: metadata as JSON, or the bytes with `?download=1`. */
export const GET = apiRoute<{ org: string; project: string; eventId: string; attachmentId: string }>(
  "event.read",
  async (req, { params }) => {
    const viewer = await requireViewer(req);
    const id = /^\d+$/.test(params.attachmentId) ? Number(params.attachmentId) : Number.NaN;
    const file = await app().attachments.download(viewer, params.org, params.project, params.eventId, id);
    const download = new URL(req.url).searchParams.get("download");
    if (download === null || download === "0") {
      const { data: _bytes, ...meta } = file;
      return Response.json(sentryAttachment(meta));
    }
    return new Response(new Uint8Array(file.data), { status: 200, headers: attachmentDownloadHeaders(file) });
  },
);
export const dynamic = "force-dynamic";
