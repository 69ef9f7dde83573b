import { ssoErrorRedirect } from "@/app/api/sso/sso-redirects";
import { app } from "@/server/app-context";
import { safeNextPath } from "@/ui/auth/safe-next";

// Starts a sign-in at the organization's identity provider. SAML: a 302 with an AuthnRequest
// (HTTP-Redirect binding), recorded with whoever is signed in (linking). OpenID Connect: a 302
// there, with the sealed state (PKCE verifier, state, nonce, where to land) in a short-lived cookie.
export async function GET(req: Request, { params }: { params: Promise<{ org: string }> }): Promise<Response> {
  const { org } = await params;
  const s = app();
  try {
    const next = safeNextPath(new URL(req.url).searchParams.get("next"));
    const saml = await s.saml.begin(org, next, await s.session.viewerFromHeaders(req.headers));
    if (saml) return new Response(null, { status: 302, headers: { location: saml, "cache-control": "no-store" } });
    const begun = await s.sso.begin(org, next);
    return new Response(null, {
      status: 302,
      headers: { location: begun.location, "set-cookie": s.sso.stateCookieHeader(begun.stateCookie) },
    });
  } catch (err) {
    return ssoErrorRedirect(err, org, s.log);
  }
}
export const dynamic = "force-dynamic";
