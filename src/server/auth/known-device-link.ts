/**
 * The way back in while an account is locked (issue 39): when the account-wide lock refuses a
 * sign-in, the account's owner is mailed (once per throttle window, SMTP configured) a notice — how
 * many failures, from how many addresses — with a one-time link. Opened and confirmed in a browser,
 * it gives that browser the device cookie (device-cookie.ts), so it signs in with the password
 * despite the lock, as a browser that signed in before does. The link proves control of the
 * mailbox, never replaces the password; the reset link proves as much and does more.
 *
 * The link is stateless (HMAC under a key derived from the installation secret, expiry inside) and
 * one-time by a unique marker row in `login_failures`, which lives as long as the link can. Confirming is
 * a POST from the page, not the GET of the link: mail scanners that open links must not use it up.
 * The lock's answer is the same whether or not the address has an account, and the mail goes out
 * after it, so neither words nor timing tell which addresses have accounts.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { AppError } from "../../core/errors";
import { accountKey } from "../../core/security/login-throttle";
import type { Logger } from "../../log";
import type { Mailer } from "../../net/mailer";
import type { Db } from "../../storage/db";
import { claimedOnce, claimOnce, failureSpread } from "../../storage/members/login-failures";
import { type Auth, findUserByEmail } from "./auth";
import type { DeviceCookies } from "./device-cookie";

export interface KnownDeviceLinks {
  /** SMTP is configured: a locked account's owner gets the notice and the link. */
  readonly mailed: boolean;
  /** The lock refused a sign-in for `email` at `lockedAt`: notify its owner (once per window). Not awaited by the answer. */
  accountLocked(email: string, lockedAt: number): void;
  /** Whether a link can still be used (the page says so before offering the button). */
  usable(token: string): Promise<boolean>;
  /** Uses the link up: the `Set-Cookie` of the device cookie for the confirming browser, else known_device_link_invalid. */
  confirm(token: string): Promise<string>;
}

export function createKnownDeviceLinks(deps: {
  db: Db;
  auth: Auth;
  mailer: Mailer | null;
  devices: DeviceCookies;
  secret: string;
  publicUrl: string;
  /** how long a link works and notices are spaced: the throttle window (its rows live that long) */
  windowMs: number;
  /** the account lock's window, over which the notice counts failures */
  lockMs: number;
  log: Logger;
  now: () => number;
}): KnownDeviceLinks {
  const { db, mailer, devices, log, now } = deps;
  const key = Buffer.from(hkdfSync("sha256", deps.secret, "errata", "known-device-link", 32));
  const sign = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");

  function issue(account: string, at: number): string {
    const payload = `${account}.${randomBytes(16).toString("base64url")}.${Math.floor((at + deps.windowMs) / 1000)}`;
    return `${payload}.${sign(`kd1.${payload}`)}`;
  }

  /** The link's account and nonce when it is genuine and unexpired; else null. */
  function read(token: string): { account: string; nonce: string } | null {
    if (typeof token !== "string" || token.length > 200) return null;
    const [account, nonce, expires, sig] = token.split(".");
    if (!account || !nonce || !expires || !sig || token.split(".").length !== 4) return null;
    const expected = Buffer.from(sign(`kd1.${account}.${nonce}.${expires}`));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    if (!(Number(expires) * 1000 > now())) return null;
    return { account, nonce };
  }

  async function notify(email: string, lockedAt: number): Promise<void> {
    if (!mailer) return;
    const at = now();
    const account = accountKey(email);
    if (!(await claimOnce(db, `notice:${account}`, at, at - deps.windowMs))) return;
    const user = await findUserByEmail(deps.auth, email.trim());
    if (!user) return;
    // The failures that caused the lock: not the rows of attempts still in flight after it.
    const spread = await failureSpread(db, `account:${account}`, lockedAt - deps.lockMs, lockedAt);
    const minutes = Math.round(deps.windowMs / 60_000);
    const link = `${deps.publicUrl}/known-device/${issue(account, at)}`;
    const text = [
      `There were ${spread.failures} failed sign-ins to your Errata account (${user.email}) from ${spread.addresses} addresses in the last ${Math.max(1, Math.round(deps.lockMs / 60_000))} minutes, so new browsers cannot sign in to it for a few minutes.`,
      "Your password was not changed, and browsers that signed in to the account before still can.",
      "",
      `To sign in from a new browser now, open this link in that browser and confirm (it works once, for ${minutes} minutes):`,
      link,
      "",
      "If it was not you: nobody got in with these attempts, and the addresses that made them are being slowed down. If your password is short or used elsewhere, change it in your account settings.",
    ].join("\n");
    await mailer.send({ to: user.email, subject: "Failed sign-ins to your Errata account", text });
    log.info({ userId: user.id, failures: spread.failures, addresses: spread.addresses }, "account lock notice mailed");
  }

  return {
    mailed: mailer !== null,

    accountLocked(email, lockedAt) {
      notify(email, lockedAt).catch((err: unknown) => {
        log.warn({ reason: err instanceof Error ? err.message : String(err) }, "account lock notice failed");
      });
    },

    async usable(token) {
      const link = read(token);
      return link !== null && !(await claimedOnce(db, `link:${link.nonce}`, 0));
    },

    async confirm(token) {
      const link = read(token);
      // One use: of concurrent confirmations exactly one records the marker.
      if (!link || !(await claimOnce(db, `link:${link.nonce}`, now(), 0))) throw new AppError("known_device_link_invalid");
      log.info("known-device link confirmed");
      return devices.issueForAccount(link.account, now());
    },
  };
}
