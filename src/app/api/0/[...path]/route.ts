import { AppError } from "@/core/errors";
import { apiRoute } from "@/server/http/api-route";

// Any /api/0/ path no route handles: the catalogue's JSON not_found (README), not the HTML 404 page.
const notFound = apiRoute("public", async () => {
  throw new AppError("not_found", "No such API endpoint.");
});

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const dynamic = "force-dynamic";
