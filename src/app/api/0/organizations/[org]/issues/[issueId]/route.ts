import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath, issueUpdateFromBody, sentryIssueDetail } from "@/server/http/issue-mutations";

export const GET = apiRoute<{ org: string; issueId: string }>(async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const issue = await services.issues.get(viewer, params.org, Number(params.issueId));
  return Response.json(sentryIssueDetail(issue, services.publicUrl, params.org));
});

// Sentry's issue update: {"status", "statusDetails", "assignedTo"}; answers with the issue.
export const PUT = apiRoute<{ org: string; issueId: string }>(async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  // Sentry's synonyms and ignorable keys first; the service validates strictly (validation_failed naming the field).
  const body = issueUpdateFromBody(await readJson(req));
  const issue = await services.issueActions.update(viewer, params.org, issueIdFromPath(params.issueId), body);
  return Response.json(sentryIssueDetail(issue, services.publicUrl, params.org));
});

// Deleting an issue removes its events; later events of its fingerprint start a new issue. 202 like Sentry.
export const DELETE = apiRoute<{ org: string; issueId: string }>(async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().issueActions.delete(viewer, params.org, [issueIdFromPath(params.issueId)]);
  return new Response(null, { status: 202 });
});
export const dynamic = "force-dynamic";
