import { isAppError } from "@/core/errors";
import type { Logger } from "@/log";

/**
 * A failed SSO step goes back to the sign-in page with the catalogue code (never free text from
 * the query, which anyone could craft into a phishing message); the page shows its message.
 */
export function ssoErrorRedirect(err: unknown, org: string, log: Logger): Response {
  const code = isAppError(err) ? err.code : "internal_error";
  if (!isAppError(err)) log.error({ err, org }, "sso: unexpected failure");
  const to = `/login?sso_error=${encodeURIComponent(code)}&org=${encodeURIComponent(org)}`;
  return new Response(null, { status: 302, headers: { location: to } });
}

/**
 * A refused SAML response: the catalogue status and code (HTTP clients and tests read them), and
 * for the browser a page that goes on to the sign-in page, which shows the message.
 */
export function samlErrorPage(err: unknown, org: string, log: Logger): Response {
  const code = isAppError(err) ? err.code : "internal_error";
  if (!isAppError(err)) log.error({ err, org }, "saml: unexpected failure");
  const status = isAppError(err) ? err.status : 500;
  const to = `/login?sso_error=${encodeURIComponent(code)}&org=${encodeURIComponent(org)}`;
  const html = `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${to}"><title>Single sign-on refused</title><p>Single sign-on refused (${code}). <a href="${to}">Back to sign-in</a></p>`;
  return new Response(html, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "x-errata-error": code, "cache-control": "no-store" },
  });
}
