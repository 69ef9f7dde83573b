import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";
import { sentryLinkHeader } from "@/server/http/pagination";
import { bulkDelete, bulkPut } from "@/server/issues/rest-mutations";
import { sentryIssue } from "@/server/issues/sentry-shapes";

// Sentry-compatible: GET /api/0/projects/{org}/{project}/issues/?query=…&cursor=…
export const GET = apiRoute<{ org: string; project: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const services = app();
  await services.projects.get(viewer, params.org, params.project);
  const page = await services.issues.list(viewer, params.org, {
    project: params.project,
    query: url.searchParams.get("query") ?? "is:unresolved",
    cursor: url.searchParams.get("cursor"),
    limit: Number(url.searchParams.get("limit") ?? 100) || 100,
  });
  const headers = new Headers();
  headers.set("link", sentryLinkHeader(services.publicUrl, url, page.nextCursor));
  return Response.json(
    page.items.map((i) => sentryIssue(i, services.publicUrl, params.org)),
    { headers },
  );
});

// Sentry's bulk mutations, limited to this project: PUT ?id=1&id=2 with an update or {"merge": 1}; DELETE ?id=….
export const PUT = apiRoute<{ org: string; project: string }>("issue.update", async (req, { params }) =>
  bulkPut(req, { org: params.org, project: params.project }),
);

export const DELETE = apiRoute<{ org: string; project: string }>("issue.delete", async (req, { params }) =>
  bulkDelete(req, { org: params.org, project: params.project }),
);

export const dynamic = "force-dynamic";
