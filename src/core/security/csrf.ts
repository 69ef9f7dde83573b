/**
 * Cross-site request forgery, decided per request before anything runs (SPEC §9, issue 9). A
 * browser attaches the session cookie to requests from any page of the same *site* — another port
 * of the same host included — and `text/plain` or multipart bodies need no CORS preflight. So a
 * state-changing request that carries our cookie must come from our exact origin (scheme, host and
 * port), and the REST API accepts a cookie only with a JSON body, which a foreign page cannot send
 * without a preflight. Bearer-token REST calls carry no ambient authority and are unaffected.
 */

export interface CsrfRequest {
  method: string;
  path: string;
  origin: string | undefined;
  cookie: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  hasBody: boolean;
}

export type CsrfVerdict = { ok: true } | { ok: false; code: "foreign_origin" | "json_required" };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
// Better Auth's cookies (session token, cached session data), with or without the __Secure- prefix.
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.[\w.-]+=/;
// Endpoints that change who is signed in or create the first account: no cookie needed to abuse them.
const ALWAYS_CHECKED = [/^\/api\/auth\//, /^\/api\/setup\/?$/];
// SAML's Assertion Consumer Service: the identity provider's page posts to it from its own origin,
// by design. It reads no cookie (who started a sign-in is stored with the request at its start);
// the signed response is its authentication, checked in src/server/saml/.
const SIGNED_BODY = /^\/api\/sso\/[^/]+\/saml\/acs\/?$/;

export function csrfVerdict(req: CsrfRequest, allowedOrigin: string): CsrfVerdict {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return { ok: true };
  if (SIGNED_BODY.test(req.path)) return { ok: true };
  const rest = req.path.startsWith("/api/0/");
  if (rest && /^Bearer\s/i.test(req.authorization ?? "")) return { ok: true };
  const cookieAuth = SESSION_COOKIE.test(req.cookie ?? "");
  if (!cookieAuth && !ALWAYS_CHECKED.some((re) => re.test(req.path))) return { ok: true };
  if (!sameOrigin(req.origin, allowedOrigin)) return { ok: false, code: "foreign_origin" };
  if (rest && cookieAuth && req.hasBody && !isJson(req.contentType)) return { ok: false, code: "json_required" };
  return { ok: true };
}

/** Exact origin match; a missing or `null` Origin (sandboxed frames, privacy modes) is not ours. */
function sameOrigin(origin: string | undefined, allowed: string): boolean {
  if (!origin || origin === "null") return false;
  try {
    return new URL(origin).origin === new URL(allowed).origin;
  } catch {
    return false;
  }
}

function isJson(contentType: string | undefined): boolean {
  const mime = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  return mime === "application/json";
}
