import { samlErrorPage } from "@/app/api/sso/sso-redirects";
import { AppError } from "@/core/errors";
import { app } from "@/server/app-context";
import { createSessionCookies } from "@/server/auth/auth";
import { CLIENT_IP_HEADER } from "@/server/auth/requests";

/** A SAML response with its certificates and attributes is a few KB; more is refused unread. */
const MAX_BODY = 512 * 1024;

// The Assertion Consumer Service (HTTP-POST binding): the identity provider's signed response is
// verified (src/server/saml/sign-in.ts), the person provisioned, and a session made exactly as a
// password sign-in makes one; a test sign-in goes back to the settings with what was asserted.
export async function POST(req: Request, { params }: { params: Promise<{ org: string }> }): Promise<Response> {
  const { org } = await params;
  const s = app();
  try {
    if (Number(req.headers.get("content-length") ?? 0) > MAX_BODY) throw new AppError("saml_malformed", "The request is too large.");
    const form = await req.formData().catch(() => new FormData());
    const done = await s.saml.acs(
      org,
      { SAMLResponse: form.get("SAMLResponse"), RelayState: form.get("RelayState") },
      req.headers.get(CLIENT_IP_HEADER),
    );
    const headers = new Headers({ location: done.next, "cache-control": "no-store" });
    if (done.kind === "signin")
      for (const c of await createSessionCookies(s.auth, done.userId, req.headers)) headers.append("set-cookie", c);
    // 303: the browser follows with a GET (a POST must not be repeated at the landing page).
    return new Response(null, { status: 303, headers });
  } catch (err) {
    return samlErrorPage(err, org, s.log);
  }
}

export const dynamic = "force-dynamic";
