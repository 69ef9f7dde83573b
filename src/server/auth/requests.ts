/**
 * Requests to Better Auth's endpoints (/api/auth/*). Email sign-in goes through our login throttle
 * (per account and per client address, SPEC §9) instead of Better Auth's per-address limiter,
 * which counted every request — successes included — across all accounts behind one address.
 */
import { randomUUID } from "node:crypto";
import { AppError } from "../../core/errors";
import type { ThrottleScope } from "../../core/security/login-throttle";
import { errorResponse } from "../http/error-response";
import type { KnownDeviceLinks } from "./known-device-link";
import type { LoginThrottle } from "./login-throttle";

/** Set by the custom server from the socket (and TRUSTED_PROXIES); any client-sent value is overwritten. */
export const CLIENT_IP_HEADER = "x-errata-client-ip";

export interface AuthRequests {
  handle(req: Request): Promise<Response>;
}

/**
 * The Better Auth endpoints browsers may call. Everything else Better Auth serves (change-password
 * with `revokeOtherSessions: false`, update-user, revoke-session, …) is done by our services, which
 * enforce SPEC §9 (a password change ends the other sessions); over HTTP those answer not_found.
 */
const PUBLIC_AUTH_PATHS: ReadonlySet<string> = new Set(["/sign-in/email", "/sign-out", "/get-session", "/ok", "/error"]);
/** Ours, beside Better Auth's: confirming a mailed known-device link (known-device-link.ts), under the device cookie's path. */
const KNOWN_DEVICE_PATH = "/known-device";

interface Deps {
  handler: (req: Request) => Promise<Response>;
  throttle: LoginThrottle;
  /** An organization of the account requires SSO (src/server/auth/sso.ts). */
  passwordSignInRefusal: (email: string) => Promise<AppError | null>;
  revokeSession: (token: string) => Promise<void>;
  knownDevices: KnownDeviceLinks;
}

export function createAuthRequests(deps: Deps): AuthRequests {
  return {
    async handle(req) {
      const endpoint = new URL(req.url).pathname.replace(/^\/api\/auth/, "").replace(/\/+$/, "");
      if (endpoint === KNOWN_DEVICE_PATH && req.method === "POST") return confirmKnownDevice(req, deps);
      if (!PUBLIC_AUTH_PATHS.has(endpoint)) return errorResponse(new AppError("not_found", "No such endpoint."), randomUUID());
      if (req.method !== "POST" || endpoint !== "/sign-in/email") return deps.handler(req);
      return signInWithThrottle(req, deps);
    },
  };
}

async function signInWithThrottle(req: Request, deps: Deps) {
  const body = await req.text();
  const email = emailOf(body);
  // Without an email Better Auth answers a validation error; nothing to count.
  if (email === null) return deps.handler(rebuild(req, body));
  const ip = req.headers.get(CLIENT_IP_HEADER) ?? "unknown";
  const started = await deps.throttle.begin(email, ip, req.headers.get("cookie"));
  if (!started.allowed) {
    // The owner hears of the lock (after this answer, and alike whether or not the account exists).
    if (started.accountLocked) deps.knownDevices.accountLocked(email, started.at);
    return throttled(started.retryAfterSeconds, started.scope, deps.knownDevices.mailed);
  }
  let res: Response;
  try {
    res = await deps.handler(rebuild(req, body));
  } catch (err) {
    await deps.throttle.settle(started.attempt, "not_counted");
    throw err;
  }
  await deps.throttle.settle(started.attempt, res.status === 401 ? "failed" : "not_counted");
  if (!res.ok) return res;
  const answer = await refuseIfSsoRequired(res, email, deps);
  // Signed in: this browser is known to the account from now on (it skips the account's global lock).
  if (answer !== res) return answer;
  const out = new Response(res.body, res);
  out.headers.append("set-cookie", deps.throttle.deviceCookie(email));
  return out;
}

/**
 * A correct password of an account whose organization requires SSO: the session just made is
 * ended and the answer says to use SSO. Checked only after the password was right, so the answer
 * tells nobody without the password which organizations an address belongs to.
 */
async function refuseIfSsoRequired(res: Response, email: string, deps: Deps): Promise<Response> {
  const refusal = await deps.passwordSignInRefusal(email);
  if (!refusal) return res;
  const token = ((await res.clone().json()) as { token?: unknown } | null)?.token;
  if (typeof token === "string") await deps.revokeSession(token);
  return errorResponse(refusal, randomUUID());
}

function emailOf(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    const email = (parsed as { email?: unknown } | null)?.email;
    return typeof email === "string" && email.trim() ? email : null;
  } catch {
    return null;
  }
}

function rebuild(req: Request, body: string): Request {
  return new Request(req.url, { method: req.method, headers: req.headers, body });
}

/** `{"token": "…"}` from the known-device page: this browser gets the device cookie, or 410 known_device_link_invalid. */
async function confirmKnownDevice(req: Request, deps: Deps): Promise<Response> {
  let token: unknown;
  try {
    token = ((await req.json()) as { token?: unknown } | null)?.token;
  } catch {
    token = undefined;
  }
  try {
    const cookie = await deps.knownDevices.confirm(typeof token === "string" ? token : "");
    const res = Response.json({ ok: true });
    res.headers.append("set-cookie", cookie);
    return res;
  } catch (err) {
    return errorResponse(err, randomUUID());
  }
}

function throttled(retryAfterSeconds: number, scope: ThrottleScope, linkMailed: boolean): Response {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  // An address's back-off starts at seconds; the window-long limits are minutes.
  const wait =
    retryAfterSeconds < 120
      ? `Try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? "" : "s"}.`
      : `Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
  const way = linkMailed
    ? "A browser that has signed in to it before can sign in now, and the account's owner has been e-mailed a link that lets another browser sign in."
    : "A browser that has signed in to it before can sign in now.";
  const err =
    scope === "account"
      ? new AppError("account_locked", `This account is briefly locked after many failed sign-ins from many addresses. ${wait} ${way}`)
      : new AppError(
          "sign_in_throttled",
          `Too many failed sign-in attempts for this account from this address, or from this address. ${wait}`,
        );
  const res = errorResponse(err, randomUUID());
  res.headers.set("retry-after", String(retryAfterSeconds));
  return res;
}
