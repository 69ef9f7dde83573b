/**
 * Downloads an event attachment. Always as a download of opaque bytes (never the content type the
 * SDK declared): an uploaded HTML or SVG file must not run on Errata's origin.
 */
import { app } from "@/server/app-context";

export const dynamic = "force-dynamic";

type Params = { org: string; id: string; eventId: string; attachmentId: string };

export async function GET(req: Request, ctx: { params: Promise<Params> }): Promise<Response> {
  const { org, id, eventId, attachmentId } = await ctx.params;
  const services = app();
  const viewer = await services.session.viewerFromHeaders(req.headers);
  if (!viewer) return Response.json({ error: { code: "unauthenticated", message: "Sign in first." } }, { status: 401 });
  if (!/^\d{1,15}$/.test(id) || !/^\d{1,15}$/.test(attachmentId) || !/^[0-9a-f]{32}$/.test(eventId))
    return Response.json({ error: { code: "not_found" } }, { status: 404 });
  try {
    const file = await services.issueStream.attachment(viewer, org, Number(id), eventId, Number(attachmentId));
    const ascii = file.name.replace(/[^\w.-]+/g, "_").slice(0, 100) || "attachment";
    return new Response(new Uint8Array(file.data), {
      headers: {
        "content-type": "application/octet-stream",
        "content-disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
        "x-content-type-options": "nosniff",
        "content-security-policy": "sandbox",
        "cache-control": "private, no-store",
      },
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    return Response.json(
      { error: { code: code ?? "internal_error" } },
      { status: code === "not_found" || code === "forbidden" ? 404 : 500 },
    );
  }
}
