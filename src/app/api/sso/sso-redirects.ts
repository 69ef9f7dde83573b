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
