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
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    // Overwrites whatever the client sent: the nonce must be ours.
    req.headers["content-security-policy"] = headers["content-security-policy"];
    delete req.headers["content-security-policy-report-only"];
  };
}
