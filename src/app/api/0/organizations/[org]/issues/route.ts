import { apiRoute } from "@/server/http/api-route";
import { listIssues } from "@/server/issues/rest-list";
import { bulkDelete, bulkPut } from "@/server/issues/rest-mutations";

// Sentry's org issue list: ?project=1&project=2 (-1 all), environment, query, statsPeriod|start+end,
// sort, limit, cursor, shortIdLookup, groupStatsPeriod; every issue with `stats`.
export const GET = apiRoute<{ org: string }>("event.read", async (req, { params }) => listIssues(req, { org: params.org }));

// Sentry-compatible bulk mutations: PUT /api/0/organizations/{org}/issues/?id=1&id=2 with
// {"status": …, "statusDetails": …, "assignedTo": …} or {"merge": 1}; DELETE with the same ids.
export const PUT = apiRoute<{ org: string }>("issue.update", async (req, { params }) => bulkPut(req, { org: params.org }));

export const DELETE = apiRoute<{ org: string }>("issue.delete", async (req, { params }) => bulkDelete(req, { org: params.org }));

export const dynamic = "force-dynamic";
