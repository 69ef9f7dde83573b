/**
 * Next.js calls this for every error thrown while rendering a page or running a route handler.
 * The browser only sees Errata's error page with the error's digest as the request id, so the log
 * line must carry the same digest to find the original error.
 */
import { app } from "@/server/app-context";

export async function register(): Promise<void> {}

export async function onRequestError(
  err: unknown,
  request: { path: string; method: string },
  context: { routerKind: string; routePath: string; routeType: string },
): Promise<void> {
  const digest = (err as { digest?: string } | null)?.digest;
  try {
    app().log.error(
      {
        err,
        digest,
        requestId: digest,
        path: request.path,
        method: request.method,
        route: context.routePath,
        routeType: context.routeType,
      },
      "request failed",
    );
  } catch {
    // The services are not up (build-time render): nothing to log to.
  }
}
