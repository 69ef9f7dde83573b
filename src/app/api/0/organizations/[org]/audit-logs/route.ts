import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { auditLogShape } from "@/server/identity/audit-shape";

// The organization's audit log (owners; Sentry's path): newest first, `?cursor=<id>` for older
// entries, `?event=<action>` to narrow.
export const GET = apiRoute<{ org: string }>("audit.read", async (req, { params }) => {
  const q = new URL(req.url).searchParams;
  const page = await app().audit.page(await requireViewer(req), params.org, { before: q.get("cursor"), action: q.get("event") });
  const headers: HeadersInit = page.next ? { link: `<${req.url.split("?")[0]}?cursor=${page.next}>; rel="next"; results="true"` } : {};
  return Response.json(auditLogShape(page.entries), { headers });
});
