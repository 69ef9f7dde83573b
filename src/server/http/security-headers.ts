/**
 * Sets the security headers (core/security/headers.ts) on a web response, with a fresh script
 * nonce that is also written into the request's CSP header: Next.js takes the nonce from there for
 * its own inline and external scripts, and the root layout for the theme boot script.
 */
import { createHash, randomBytes } from "node:crypto";
import type http from "node:http";
import { securityHeaders } from "../../core/security/headers";

export function createSecurityHeaders(opts: { https: boolean; dev: boolean; inlineScripts: string[] }) {
  const scriptHashes = opts.inlineScripts.map((s) => `sha256-${createHash("sha256").update(s).digest("base64")}`);
  return (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const headers = securityHeaders({ nonce: randomBytes(16).toString("base64"), scriptHashes, https: opts.https, dev: opts.dev });
    // Set when the head is written, and only where the response did not choose its own (an
    // attachment download sandboxes itself with a stricter CSP of its own).
    const writeHead = res.writeHead;
    res.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
      const explicit = args.find((a) => typeof a === "object" && a !== null) as Record<string, unknown> | unknown[] | undefined;
      const named = new Set(
        Array.isArray(explicit)
          ? explicit.filter((_, i) => i % 2 === 0).map((n) => String(n).toLowerCase())
          : Object.keys(explicit ?? {}).map((n) => n.toLowerCase()),
      );
      for (const [name, value] of Object.entries(headers)) if (!res.hasHeader(name) && !named.has(name)) res.setHeader(name, value);
      return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
    } as typeof res.writeHead;
    // Overwrites whatever the client sent: the nonce must be ours.
    req.headers["content-security-policy"] = headers["content-security-policy"];
    delete req.headers["content-security-policy-report-only"];
  };
}
