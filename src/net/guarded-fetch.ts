/**
 * A `fetch`-shaped function over `safeRequest`, for libraries that take a custom fetch (the
 * OpenID Connect client): every request they make — discovery, JWKS, token, userinfo — goes
 * through the installation's outbound policy, checked on the address actually connected to.
 * Redirects are not followed (the OIDC client asks for `redirect: "manual"` anyway).
 */
import { type OutboundPolicy, safeRequest } from "./safe-request";

export type GuardedFetch = (url: string, init: { method: string; headers: Record<string, string>; body?: unknown }) => Promise<Response>;

export function guardedFetch(policy: OutboundPolicy, opts: { timeoutMs: number; maxBodyBytes: number }): GuardedFetch {
  return async (url, init) => {
    const res = await safeRequest(
      url,
      {
        method: init.method,
        headers: init.headers,
        body: bodyOf(init.body),
        timeoutMs: opts.timeoutMs,
        maxBodyBytes: opts.maxBodyBytes,
        maxRedirects: 0,
      },
      policy,
    );
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) headers.set(k, v);
    const nullBody = res.status === 204 || res.status === 304 || init.method === "HEAD";
    return new Response(nullBody ? null : new Uint8Array(res.body), { status: res.status, headers });
  };
}

function bodyOf(body: unknown): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError("guardedFetch: streaming request bodies are not supported");
}
