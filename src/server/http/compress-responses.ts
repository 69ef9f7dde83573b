/**
 * Response compression for everything Next.js serves, in place of Next's own (`compress: false`
 * in next.config.mjs): pages and assets through the same `compression` middleware Next uses;
 * Sentry's REST API (`/api/0/`) through gzip-api-json.ts, one synchronous level-1 gzip per JSON
 * answer (why: see there).
 */
import type http from "node:http";
import compression from "compression";
import { gzipApiJson } from "./gzip-api-json";

type Middleware = (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;

export function createResponseCompression(): Middleware {
  // The package is typed for Express; it only reads the request's headers and wraps the response.
  const pages = compression() as unknown as Middleware;
  return (req, res, next) => {
    if (!(req.url ?? "").startsWith("/api/0/")) return pages(req, res, next);
    gzipApiJson(req, res);
    next();
  };
}
