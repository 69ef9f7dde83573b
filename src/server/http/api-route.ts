/**
 * Wraps Next.js route handlers of the REST API: a request id on every response, AppErrors mapped
 * through the catalogue to `{"detail": message, "error": {code, message, fields?, request_id}}`
 * (`detail` is what Sentry's clients print; the catalogue code stays beside it), anything else
 * logged with the request id and answered as `internal_error` without internals.
 *
 * Every route names what it does first: an action of the permission table
 * (src/server/access/permissions.ts) that its service authorizes, "signed-in" (any caller, no
 * organization) or "public". The role matrix test reads these names to know who must be allowed
 * and who refused, so a route without one fails it:
 *
 *   export const POST = apiRoute<P>("release.write", async (req, { params }) => { … });
 */
import { randomUUID } from "node:crypto";
import { AppError } from "../../core/errors";
import type { Action } from "../access/permissions";
import { app } from "../app-context";
import type { Viewer } from "../types";
import { errorResponse } from "./error-response";

type Handler<P> = (req: Request, ctx: { params: P; requestId: string }) => Promise<Response>;

/** Who may call a route: a permission-table action, any signed-in caller, or anyone. */
export type RouteAccess = Action | "signed-in" | "public";

export function apiRoute<P>(access: RouteAccess, handler: Handler<P>) {
  void access; // declared for readers and the role matrix; the service authorizes
  return async (req: Request, routeCtx: { params: Promise<P> }): Promise<Response> => {
    const requestId = randomUUID();
    try {
      const res = await handler(req, { params: await routeCtx.params, requestId });
      res.headers.set("x-request-id", requestId);
      return res;
    } catch (err) {
      return errorResponse(err, requestId, servicesIfStarted());
    }
  };
}

/** The services, or undefined before the custom server set them up (nothing to log to then). */
function servicesIfStarted() {
  try {
    return app();
  } catch {
    return undefined;
  }
}

/** The caller of a REST request: a bearer token, else the browser session. */
export async function requireViewer(req: Request): Promise<Viewer> {
  const services = app();
  const authz = req.headers.get("authorization");
  const viewer = authz ? await services.session.viewerFromToken(authz) : await services.session.viewerFromHeaders(req.headers);
  if (!viewer) throw new AppError("unauthenticated");
  return viewer;
}

export async function readJson(req: Request): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    throw new AppError("validation_failed", "The request body is not valid JSON.", {
      fields: [{ field: "body", rule: "json", message: "not valid JSON" }],
    });
  }
}
