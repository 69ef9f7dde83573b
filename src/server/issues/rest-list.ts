/**
 * Sentry's issue lists over REST: `GET /organizations/{org}/issues/` and
 * `GET /projects/{org}/{project}/issues/`, with Sentry's parameters (src/server/sentry-api/issue-list-params.ts),
 * `stats` on every issue, the `Link` header, and `X-Sentry-Direct-Hit` for an event-id or short-id lookup.
 * The issue reads service authorizes (event:read, visible projects).
 */

import { app } from "../app-context";
import { requireViewer } from "../http/api-route";
import { sentryLinkHeader } from "../http/pagination";
import { sentryIssueListParams } from "../sentry-api/issue-list-params";
import { sentryIssue } from "../sentry-api/shapes/issue";
import { statsJson } from "./series-cache";

export async function listIssues(req: Request, scope: { org: string; project?: string }): Promise<Response> {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  const p = sentryIssueListParams(url.searchParams, Date.now(), "is:unresolved", scope.project ? "project" : "org");
  // A project (by slug, or by id as Sentry's clients also send it) the caller cannot see answers
  // 404 before any search.
  const found = scope.project ? await services.projects.get(viewer, scope.org, scope.project) : null;
  const project = found?.slug;
  if (p.feedback) {
    const items = await services.userFeedbackApi.feedbackIssues(viewer, scope.org, {
      projectIds: found ? [found.id] : p.projectIds,
      range: p.range,
      query: p.query,
      limit: p.limit,
      publicUrl: services.publicUrl,
    });
    // One page: feedback is listed newest first up to `limit`, without a next cursor.
    return Response.json(items, { headers: { link: sentryLinkHeader(services.publicUrl, url, null) } });
  }
  const page = p.categoryMatches
    ? await services.issues.list(viewer, scope.org, {
        project,
        projectIds: p.projectIds ?? undefined,
        environments: p.environments,
        seenWithin: p.range ?? undefined,
        query: p.query,
        sort: p.sort,
        limit: p.limit,
        cursor: p.cursor,
        lookup: { eventId: true, shortId: p.shortIdLookup },
        stats: p.stats,
      })
    : { items: [], nextCursor: null };
  const headers = new Headers({ link: sentryLinkHeader(services.publicUrl, url, page.nextCursor) });
  if ("directHit" in page && page.directHit) headers.set("x-sentry-direct-hit", "1");
  // Spliced rather than stringified whole: each issue's `stats` JSON is made once per series
  // version (series-cache.ts), not on every poll.
  const body = page.items.map((i) => {
    const issue = JSON.stringify(sentryIssue(i, services.publicUrl, scope.org));
    return i.stats ? `${issue.slice(0, -1)},"stats":${statsJson(i.stats)}}` : issue;
  });
  headers.set("content-type", "application/json");
  return new Response(`[${body.join(",")}]`, { headers });
}
