/**
 * Response compression for everything Next.js serves, in place of Next's own (`compress: false`
 * in next.config.mjs): the same `compression` middleware Next uses, with one difference. Sentry's
 * REST API (`/api/0/`) is gzipped at level 1 — nginx's default, what Sentry's own proxy sends —
 * instead of 6. A 100 KB issue list costs ~3 ms to deflate at level 6, as much as reading the
 * list, and most of what Sentry's `stats` add to it (issue 28's 10 % budget); level 1 is 3–4×
 * faster for ~40 % more bytes, which matters little for JSON on its way to a script or a proxy.
 * Pages and assets keep Next's default level: they travel to browsers, often over slow links.
 */
import type http from "node:http";
import compression from "compression";

type Middleware = (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;

export function createResponseCompression(): Middleware {
  // The package is typed for Express; it only reads the request's headers and wraps the response.
  const api = compression({ level: 1 }) as unknown as Middleware;
  const pages = compression() as unknown as Middleware;
  return (req, res, next) => ((req.url ?? "").startsWith("/api/0/") ? api : pages)(req, res, next);
}
