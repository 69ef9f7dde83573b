import { AppError } from "@/core/errors";
import { apiRoute } from "@/server/http/api-route";

// Sentry features Errata does not have: a sentence the clients print, not a crash.
const NOT_AVAILABLE: Array<[RegExp, string]> = [
  [/\/(autofix|seer)(\/|$)/, "Seer (autofix and issue analysis) is not available on this Errata installation."],
  [/\/profil(es|ing)(\/|$)/, "Profiling is not available on this Errata installation."],
  // Sentry removed its metrics product; Grafana's data source still has a Metrics query type.
  [/\/metrics\/(data|meta|query)(\/|$)/, "Metrics (Sentry's release-health metrics API) are not available on this Errata installation."],
];

// Any /api/0/ path no route handles: 404 with Sentry's `detail` and the catalogue code (README), not the HTML 404 page.
const notFound = apiRoute<{ path: string[] }>("public", async (_req, { params }) => {
  const path = `/${(params.path ?? []).join("/")}/`;
  const known = NOT_AVAILABLE.find(([re]) => re.test(path));
  throw new AppError("not_found", known ? known[1] : "No such API endpoint.");
});

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const dynamic = "force-dynamic";
