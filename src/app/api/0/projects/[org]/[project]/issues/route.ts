import { apiRoute } from "@/server/http/api-route";
import { listIssues } from "@/server/issues/rest-list";
import { bulkDelete, bulkPut } from "@/server/issues/rest-mutations";

// Sentry-compatible: GET /api/0/projects/{org}/{project}/issues/?query=…&statsPeriod=24h|14d|&cursor=…
export const GET = apiRoute<{ org: string; project: string }>("event.read", async (req, { params }) =>
  listIssues(req, { org: params.org, project: params.project }),
);

// Sentry's bulk mutations, limited to this project: PUT ?id=1&id=2 with an update or {"merge": 1}; DELETE ?id=….
export const PUT = apiRoute<{ org: string; project: string }>("issue.update", async (req, { params }) =>
  bulkPut(req, { org: params.org, project: params.project }),
);

export const DELETE = apiRoute<{ org: string; project: string }>("issue.delete", async (req, { params }) =>
  bulkDelete(req, { org: params.org, project: params.project }),
);

export const dynamic = "force-dynamic";
