/**
 * Applies the CSRF verdict (core/security/csrf.ts) to a Node request before Next.js sees it, so
 * every server action, route handler, REST endpoint and Better Auth endpoint is covered — including
 * routes added later, which cannot forget a check they never have to make.
 */
import { randomUUID } from "node:crypto";
import type http from "node:http";
import { ERROR_CATALOGUE } from "../../core/errors";
import { csrfVerdict } from "../../core/security/csrf";

/** Answers and returns true when the request is a forgery; false lets it through. */
export function refuseForgedRequest(req: http.IncomingMessage, res: http.ServerResponse, allowedOrigin: string): boolean {
  const verdict = csrfVerdict(
    {
      method: req.method ?? "GET",
      path: (req.url ?? "/").split("?")[0] ?? "/",
      origin: one(req.headers.origin),
      cookie: one(req.headers.cookie),
      authorization: one(req.headers.authorization),
      contentType: one(req.headers["content-type"]),
      hasBody: Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined,
    },
    allowedOrigin,
  );
  if (verdict.ok) return false;
  const requestId = randomUUID();
  const entry = ERROR_CATALOGUE[verdict.code];
  res.writeHead(entry.status, { "content-type": "application/json", "x-request-id": requestId, vary: "Origin" });
  res.end(JSON.stringify({ error: { code: verdict.code, message: entry.message, request_id: requestId } }));
  // The body is never read; let the socket go rather than drain an upload we refused.
  req.resume();
  return true;
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
