import { apiRoute } from "@/server/http/api-route";
import { bulkDelete, bulkPut } from "@/server/issues/rest-mutations";

// Sentry-compatible bulk mutations: PUT /api/0/organizations/{org}/issues/?id=1&id=2 with
// {"status": …, "statusDetails": …, "assignedTo": …} or {"merge": 1}; DELETE with the same ids.
export const PUT = apiRoute<{ org: string }>("issue.update", async (req, { params }) => bulkPut(req, { org: params.org }));

export const DELETE = apiRoute<{ org: string }>("issue.delete", async (req, { params }) => bulkDelete(req, { org: params.org }));

export const dynamic = "force-dynamic";
