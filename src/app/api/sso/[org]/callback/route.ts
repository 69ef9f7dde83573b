import { ssoErrorRedirect } from "@/app/api/sso/sso-redirects";
import { app } from "@/server/app-context";
import { createSessionCookies } from "@/server/auth/auth";

// Where the identity provider sends the browser back: the answer is verified against the state
// cookie, the person provisioned, and a session made exactly as a password sign-in makes one.
export async function GET(req: Request, { params }: { params: Promise<{ org: string }> }): Promise<Response> {
  const { org } = await params;
  const s = app();
  try {
    const current = await s.session.viewerFromHeaders(req.headers);
    const done = await s.sso.complete(org, new URL(req.url).search, req.headers.get("cookie"), current);
    const headers = new Headers({ location: done.next });
    headers.append("set-cookie", s.sso.stateCookieHeader(null));
    for (const c of await createSessionCookies(s.auth, done.userId, req.headers)) headers.append("set-cookie", c);
    return new Response(null, { status: 302, headers });
  } catch (err) {
    const res = ssoErrorRedirect(err, org, s.log);
    res.headers.append("set-cookie", s.sso.stateCookieHeader(null));
    return res;
  }
}

export const dynamic = "force-dynamic";
