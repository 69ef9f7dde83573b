import { isAppError } from "@/core/errors";
import { app } from "@/server/app-context";

// This organization's SAML service-provider metadata (entity id, ACS URL, signing certificate):
// public, as identity providers fetch it; the URL is also the entity id.
export async function GET(_req: Request, { params }: { params: Promise<{ org: string }> }): Promise<Response> {
  const { org } = await params;
  const s = app();
  try {
    const xml = await s.saml.metadata(org);
    return new Response(xml, {
      status: 200,
      headers: { "content-type": "application/samlmetadata+xml; charset=utf-8", "cache-control": "no-cache" },
    });
  } catch (err) {
    if (!isAppError(err)) s.log.error({ err, org }, "saml: metadata failed");
    const status = isAppError(err) ? err.status : 500;
    return new Response(isAppError(err) ? err.message : "Internal error", {
      status,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
}

export const dynamic = "force-dynamic";
