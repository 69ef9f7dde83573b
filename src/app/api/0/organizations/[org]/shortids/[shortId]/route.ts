import { AppError } from "@/core/errors";
import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryIssueDetailFor } from "@/server/issues/rest-mutations";

// Sentry's short id lookup: `WEB-12` → the issue with its organization and project slugs.
export const GET = apiRoute<{ org: string; shortId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const found = await services.issueRedirects.byShortId(viewer, params.org, params.shortId);
  if (!found) throw new AppError("not_found", "Short ID not found.");
  const issue = await services.issues.get(viewer, params.org, found.issueId);
  return Response.json({
    organizationSlug: params.org,
    projectSlug: found.project.slug,
    groupId: String(issue.id),
    shortId: issue.shortId,
    group: await sentryIssueDetailFor(viewer, params.org, issue),
  });
});
export const dynamic = "force-dynamic";
