/**
 * The onboarding's live wait: has this project received its first event yet? Answers
 * `{"issue": null}` or `{"issue": {id, shortId, title, level}}` — one indexed query, polled every
 * few seconds by the waiting page.
 */
import { app } from "@/server/app-context";

export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ org: string }> }): Promise<Response> {
  const { org } = await ctx.params;
  const services = app();
  const viewer = await services.session.viewerFromHeaders(req.headers);
  if (!viewer) return Response.json({ error: { code: "unauthenticated", message: "Sign in first." } }, { status: 401 });
  const project = new URL(req.url).searchParams.get("project") ?? "";
  try {
    // the first event's issue, not the latest of several
    const issue = await services.issueStream.firstIssue(viewer, org, project);
    return Response.json(
      { issue: issue ? { id: issue.id, shortId: issue.shortId, title: issue.title, level: issue.level } : null },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (err) {
    const code = (err as { code?: string }).code;
    const status =
      code === "not_found" ? 404 : code === "forbidden" ? 403 : code === "validation_failed" || code === "invalid_query" ? 400 : 500;
    if (status === 500) services.log.error({ err }, "onboarding status failed");
    return Response.json({ error: { code: code ?? "internal_error" } }, { status });
  }
}
