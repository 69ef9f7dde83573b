/**
 * Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * signed in to an account gets `errata_device` = account key, random nonce, issue time and an HMAC
 * under a key derived from the installation secret. While it is valid for the account named at
 * sign-in, that browser's attempts count against the cookie, not against the account's global lock,
 * so an owner keeps signing in while strangers hammer the account.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { accountKey } from "../../core/security/login-throttle";

export const DEVICE_COOKIE = "errata_device";
const MAX_AGE_S = 180 * 24 * 3600;

export interface DeviceCookies {
  /** The cookie's nonce when it is genuine, unexpired and issued for this email's account; else null. */
  verify(cookieHeader: string | null, email: string, now: number): string | null;
  /** A fresh `Set-Cookie` value for a browser that just signed in to this email's account. */
  issue(email: string, now: number): string;
  /** The same for an account named by its key (core/security/login-throttle.ts `accountKey`): a mailed known-device link. */
  issueForAccount(account: string, now: number): string;
}

export function createDeviceCookies(installationSecret: string, opts: { secure: boolean }): DeviceCookies {
  const key = Buffer.from(hkdfSync("sha256", installationSecret, "errata", "device-cookie", 32));
  const sign = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");
  const issueForAccount = (account: string, now: number) => {
    const payload = `v1.${account}.${randomBytes(12).toString("base64url")}.${Math.floor(now / 1000)}`;
    const attrs = [`Max-Age=${MAX_AGE_S}`, "Path=/api/auth", "HttpOnly", "SameSite=Lax", ...(opts.secure ? ["Secure"] : [])];
    return `${DEVICE_COOKIE}=${payload}.${sign(payload)}; ${attrs.join("; ")}`;
  };
  return {
    verify(cookieHeader, email, now) {
      const value = readCookie(cookieHeader, DEVICE_COOKIE);
      const [v, account, nonce, issued, sig] = value?.split(".") ?? [];
      if (v !== "v1" || !account || !nonce || !issued || !sig) return null;
      const expected = Buffer.from(sign(`v1.${account}.${nonce}.${issued}`));
      const given = Buffer.from(sig);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      if (account !== accountKey(email)) return null;
      if (!(Number(issued) * 1000 + MAX_AGE_S * 1000 > now)) return null;
      return nonce;
    },
    issue: (email, now) => issueForAccount(accountKey(email), now),
    issueForAccount,
  };
}

function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}
