/**
 * CORS for ingest routes, Relay's policy (reference §2.4). Browser SDKs POST cross-origin as a
 * "simple request"; without Allow-Origin the page cannot read the answer (the SDK then counts a
 * network_error), and without Expose-Headers it cannot see rate limits. So the same headers go on
 * every ingest response, errors and preflights included.
 */

export const CORS_ALLOW_HEADERS =
  "x-sentry-auth, x-requested-with, x-forwarded-for, origin, referer, accept, content-type, authentication, authorization, content-encoding, transfer-encoding";
export const CORS_EXPOSE_HEADERS = "x-sentry-error, x-sentry-rate-limits, retry-after";

/** Headers for every ingest response. Frozen: shared by all requests, never mutated. */
export const CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "POST",
  "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
  "Access-Control-Expose-Headers": CORS_EXPOSE_HEADERS,
  "Access-Control-Max-Age": "3600",
});

/**
 * Headers for an OPTIONS preflight. Users who set `transportOptions.headers` make the browser ask
 * for custom headers; Relay's fixed list would refuse them, so requested names are allowed too
 * (only header-name characters are echoed).
 */
export function preflightHeaders(requested: string | undefined): Record<string, string> {
  const extra = requested
    ? requested
        .replace(/[^A-Za-z0-9_, -]/g, "")
        .slice(0, 1024)
        .trim()
    : "";
  return {
    ...CORS_HEADERS,
    "Access-Control-Allow-Headers": extra ? `${CORS_ALLOW_HEADERS}, ${extra}` : CORS_ALLOW_HEADERS,
    "Content-Length": "0",
  };
}
