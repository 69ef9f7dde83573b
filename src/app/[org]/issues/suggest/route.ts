/**
 * Search-bar autocompletion: GET ?key=<tag key>&prefix=…&project=… → the values most seen in the
 * org's projects; without `key`, the tag keys in use. JSON array of strings; session required.
 */
import { app } from "@/server/app-context";

export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ org: string }> }): Promise<Response> {
  const { org } = await ctx.params;
  const services = app();
  const viewer = await services.session.viewerFromHeaders(req.headers);
  if (!viewer) return Response.json({ error: { code: "unauthenticated", message: "Sign in first." } }, { status: 401 });
  const url = new URL(req.url);
  const key = url.searchParams.get("key")?.slice(0, 200) || undefined;
  const prefix = url.searchParams.get("prefix")?.slice(0, 200) ?? "";
  const project = url.searchParams.get("project") ?? undefined;
  try {
    const list = await services.issueStream.suggest(viewer, org, { key, prefix, project });
    return Response.json(list, { headers: { "cache-control": "private, max-age=30" } });
  } catch (err) {
    const code = (err as { code?: string }).code;
    return Response.json(
      { error: { code: code ?? "internal_error" } },
      { status: code === "not_found" ? 404 : code === "forbidden" ? 403 : 500 },
    );
  }
}
