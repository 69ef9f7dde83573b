/**
 * Response headers of every page and route the web role serves: a Content-Security-Policy whose
 * scripts need a per-request nonce (Next.js reads it back from the request's CSP header and puts
 * it on its own scripts), no framing, no MIME sniffing, no referrer leaking paths to other sites,
 * and HSTS once Errata is served over https.
 */

export interface SecurityHeaderOptions {
  /** Fresh per request, base64. */
  nonce: string;
  /** `'sha256-…'` sources of constant inline scripts of our own (the theme boot script). */
  scriptHashes: string[];
  https: boolean;
  /** Next.js development mode evaluates code (React Refresh); never in production. */
  dev: boolean;
}

export function contentSecurityPolicy(o: SecurityHeaderOptions): string {
  const script = ["'self'", `'nonce-${o.nonce}'`, ...o.scriptHashes.map((h) => `'${h}'`), ...(o.dev ? ["'unsafe-eval'"] : [])];
  const directives = [
    "default-src 'self'",
    `script-src ${script.join(" ")}`,
    // Inline style attributes (charts, widths) are not script; scripts are what the nonce guards.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${o.dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(o.https ? ["upgrade-insecure-requests"] : []),
  ];
  return directives.join("; ");
}

export function securityHeaders(o: SecurityHeaderOptions): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(o),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    ...(o.https ? { "strict-transport-security": "max-age=31536000" } : {}),
  };
}

/** The nonce of a policy built above (the root layout reads it from the request's CSP header). */
export function nonceFromPolicy(policy: string | null | undefined): string | undefined {
  return policy?.match(/script-src[^;]*'nonce-([A-Za-z0-9+/_=-]+)'/)?.[1];
}
