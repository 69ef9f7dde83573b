/**
 * Next.js answers a method a route file does not export with an empty 405. Sentry's clients print
 * the body's `detail`, so under `/api/0/` that 405 gets the catalogue body (`detail` + `error`)
 * instead. Applied by the custom server (src/cli/start.ts) before Next handles the request.
 */
import type http from "node:http";
import { AppError } from "../../core/errors";

export function jsonMethodNotAllowed(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (!(req.url ?? "").startsWith("/api/0/")) return;
  const e = new AppError("method_not_allowed", `Method "${req.method}" not allowed here.`);
  const body = JSON.stringify({ detail: e.message, error: { code: e.code, message: e.message } });
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => http.ServerResponse;
  const end = res.end.bind(res) as (...args: unknown[]) => http.ServerResponse;
  let rewrite = false;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (status === 405) {
      rewrite = true;
      res.removeHeader("content-length");
      res.setHeader("content-type", "application/json");
      // A headers object passed along may carry the empty body's length.
      for (const h of rest) if (h && typeof h === "object" && !Array.isArray(h)) delete (h as Record<string, unknown>)["content-length"];
    }
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
  res.end = ((...args: unknown[]) => {
    const empty = args.length === 0 || typeof args[0] === "function" || args[0] == null || (args[0] as { length?: number }).length === 0;
    if ((rewrite || (res.statusCode === 405 && !res.headersSent)) && empty) {
      if (!res.headersSent) {
        res.removeHeader("content-length");
        res.setHeader("content-type", "application/json");
      }
      return end(body);
    }
    return end(...args);
  }) as typeof res.end;
}
