import { isAppError } from "@/core/errors";
import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath, issueUpdateFromBody, sentryIssueDetailFor } from "@/server/issues/rest-mutations";

export const GET = apiRoute<{ org: string; issueId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const id = await services.issueRedirects.resolve(viewer, params.org, params.issueId);
  const issue = await services.issues.get(viewer, params.org, id).catch(async (err: unknown) => {
    // A merged issue answers 302 to the issue that absorbed it, as Sentry's GroupRedirect does.
    const target = isAppError(err) && err.code === "not_found" ? await services.issueRedirects.target(viewer, params.org, id) : null;
    if (target === null) throw err;
    return target;
  });
  if (typeof issue === "number") return movedTo(services.publicUrl, params.org, issue);
  return Response.json(await sentryIssueDetailFor(viewer, params.org, issue));
});

function movedTo(publicUrl: string, org: string, target: number): Response {
  const url = `${publicUrl.replace(/\/$/, "")}/api/0/organizations/${encodeURIComponent(org)}/issues/${target}/`;
  return Response.json(
    { detail: { code: "resource-moved", message: "The issue was merged into another issue.", extra: { url, id: String(target) } } },
    { status: 302, headers: { location: url } },
  );
}

// Sentry's issue update: {"status", "statusDetails", "assignedTo"}; answers with the issue.
export const PUT = apiRoute<{ org: string; issueId: string }>("issue.update", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  // Sentry's synonyms and ignorable keys first; the service validates strictly (validation_failed naming the field).
  const body = issueUpdateFromBody(await readJson(req));
  const issue = await services.issueActions.update(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId), body);
  return Response.json(await sentryIssueDetailFor(viewer, params.org, issue));
});

// Deleting an issue removes its events; later events of its fingerprint start a new issue. 202 like Sentry.
export const DELETE = apiRoute<{ org: string; issueId: string }>("issue.delete", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().issueActions.delete(viewer, params.org, [await issueIdFromPath(viewer, params.org, params.issueId)]);
  return new Response(null, { status: 202 });
});
export const dynamic = "force-dynamic";
