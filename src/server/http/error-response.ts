/**
 * An error as the REST API answers it: `{"detail": message, "error": {code, message, fields?,
 * request_id}}` with the catalogue's status (`detail` is what Sentry's clients print). AppErrors
 * map through the catalogue; a failing database is 503 with Retry-After; anything else is logged
 * with the request id and answered as `internal_error` without internals.
 *
 * The services that log and judge storage failures are passed in, never fetched from the app
 * context: the auth requests and the route wrapper both use this, and the context's services are
 * built from them (reaching back would close an import circle).
 */
import { AppError, isAppError } from "../../core/errors";
import { STORAGE_RETRY_AFTER_SECS } from "../../storage/storage-health";

/** What an unexpected error needs: the storage health check and a logger. */
export interface ErrorHost {
  health: { storageFailed(err: unknown): boolean };
  log: { error(obj: object, msg: string): void };
}

export function errorResponse(err: unknown, requestId: string, host?: ErrorHost): Response {
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
  // A locked or unwritable database: 503 + Retry-After, logged once per state change.
  if (host?.health.storageFailed(err)) {
    const e = new AppError("storage_unavailable");
    return Response.json(
      { detail: e.message, error: { code: e.code, message: e.message, request_id: requestId } },
      { status: e.status, headers: { "x-request-id": requestId, "retry-after": String(STORAGE_RETRY_AFTER_SECS) } },
    );
  }
  host?.log.error({ err, requestId }, "request failed");
  const e = new AppError("internal_error");
  return Response.json(
    { detail: e.message, error: { code: e.code, message: e.message, request_id: requestId } },
    { status: 500, headers: { "x-request-id": requestId } },
  );
}
