/**
 * Wraps the SCIM route handlers: answers in `application/scim+json`, errors in RFC 7644's shape
 * (`schemas`, `status` as a string, `scimType`, `detail`) with the catalogue code beside it. SCIM
 * routes authenticate with the organization's SCIM token, never a user's session or token, which
 * the role and isolation matrices know from the `scimRoute(` they declare.
 */
import { randomUUID } from "node:crypto";
import { AppError, isAppError } from "../../core/errors";
import { app } from "../app-context";
import { errorBody } from "./shapes";

const CONTENT_TYPE = "application/scim+json; charset=utf-8";

type Handler<P> = (req: Request, ctx: { params: P }) => Promise<unknown>;

export function scimJson(body: unknown, status = 200): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { "content-type": CONTENT_TYPE } });
}

export function scimRoute<P>(handler: Handler<P>, success = 200) {
  return async (req: Request, routeCtx: { params: Promise<P> }): Promise<Response> => {
    const requestId = randomUUID();
    let res: Response;
    try {
      const body = await handler(req, { params: await routeCtx.params });
      res = body instanceof Response ? body : scimJson(body, success);
    } catch (err) {
      const e = isAppError(err) ? err : new AppError("internal_error");
      if (!isAppError(err)) app().log.error({ err, requestId }, "scim request failed");
      res = new Response(JSON.stringify(errorBody(e.code, e.status, e.message, requestId)), {
        status: e.status,
        headers: { "content-type": CONTENT_TYPE },
      });
      if (e.code === "scim_unauthorized") res.headers.set("www-authenticate", 'Bearer realm="SCIM"');
    }
    res.headers.set("x-request-id", requestId);
    return res;
  };
}

/** A SCIM request body: JSON (application/scim+json or application/json), else `scim_invalid_value`. */
export async function scimBody(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.length > 1024 * 1024) throw new AppError("scim_invalid_value", "The request body is larger than 1 MB.");
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("scim_invalid_value", "The request body is not JSON.");
  }
}
