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
import { AppError, isAppError } from "../../core/errors";
import { STORAGE_RETRY_AFTER_SECS } from "../../storage/storage-health";
import type { Action } from "../access/permissions";
import { app } from "../app-context";
import type { Viewer } from "../types";

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
      return errorResponse(err, requestId);
    }
  };
}

export function errorResponse(err: unknown, requestId: string): Response {
  if (isAppError(err)) {
    const body = {
      detail: err.message,
      error: {
        code: err.code,
        message: err.message,
        ...(err.fields ? { fields: err.fields } : {}),
        ...(err.position !== undefined ? { position: err.position } : {}),
        request_id: requestId,
      },
    };
    return Response.json(body, { status: err.status, headers: { "x-request-id": requestId } });
  }
  try {
    // A locked or unwritable database: 503 + Retry-After, logged once per state change.
    if (app().health.storageFailed(err)) {
      const e = new AppError("storage_unavailable");
      return Response.json(
        { detail: e.message, error: { code: e.code, message: e.message, request_id: requestId } },
        { status: e.status, headers: { "x-request-id": requestId, "retry-after": String(STORAGE_RETRY_AFTER_SECS) } },
      );
    }
    app().log.error({ err, requestId }, "request failed");
  } catch {
    // services not initialised: nothing else to log to
  }
  const e = new AppError("internal_error");
  return Response.json(
    { detail: e.message, error: { code: e.code, message: e.message, request_id: requestId } },
    { status: 500, headers: { "x-request-id": requestId } },
  );
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
