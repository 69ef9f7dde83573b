/**
 * Login throttling (SPEC §9, issue 27) over the database, shared by every web process. Failures
 * count per (account, address) and per address; per account alone only far above that and
 * briefly; a browser with a valid device cookie (device-cookie.ts) counts against its cookie only.
 * An attempt is recorded before the password is checked (so parallel guesses count against each
 * other), then forgotten when it was not a wrong password. An address that keeps failing waits
 * longer and longer (core `backoffDecision`), faster when it fails on several accounts; when the
 * account-wide lock refuses, the answer says so (`accountLocked`) so its owner can be told.
 */
import type { Config } from "../../config";
import {
  accountKey,
  backoffDecision,
  type ThrottleRules,
  type ThrottleScope,
  throttleDecision,
  throttleSubjects,
} from "../../core/security/login-throttle";
import type { Db } from "../../storage/db";
import {
  addressFailures,
  deleteLoginAttempts,
  insertLoginAttempt,
  pruneLoginFailures,
  recentLoginFailures,
} from "../../storage/members/login-failures";
import type { DeviceCookies } from "./device-cookie";

export type LoginAttempt = { ids: number[] };

type Begun =
  | { allowed: true; attempt: LoginAttempt }
  /** `accountLocked`: the account-wide lock was among the refusals (whichever wait is reported); `at`: when it was judged */
  | { allowed: false; retryAfterSeconds: number; scope: ThrottleScope; accountLocked: boolean; at: number };

/** An address's failures read for its back-off: past this many the wait is the window anyway. */
const BACKOFF_READ = 64;

export interface LoginThrottle {
  /** `cookies`: the request's Cookie header (a device cookie for this account skips the global lock). */
  begin(email: string, ip: string, cookies?: string | null): Promise<Begun>;
  /** The same rule for guesses that name no account (invitation links): counted per client address only. */
  beginAddress(kind: string, ip: string): Promise<Begun>;
  /** `failed`: a wrong email or password, which counts; anything else (success, bad input) does not. */
  settle(attempt: LoginAttempt, outcome: "failed" | "not_counted"): Promise<void>;
  /** The device cookie for a browser that just signed in (a `Set-Cookie` value). */
  deviceCookie(email: string): string;
}

export function throttleRules(auth: Config["auth"]): ThrottleRules {
  const windowMs = auth.loginWindowSeconds * 1000;
  return {
    pair: { maxFailures: auth.loginMaxAttempts, windowMs },
    address: { maxFailures: auth.loginMaxAttemptsPerAddress, windowMs },
    account: { maxFailures: auth.accountLockAttempts, windowMs: auth.accountLockSeconds * 1000 },
    device: { maxFailures: auth.loginMaxAttempts, windowMs },
    backoff: { afterFailures: auth.backoffAfter, baseMs: auth.backoffSeconds * 1000, maxMs: windowMs },
  };
}

export function createLoginThrottle(deps: { db: Db; config: Config; devices: DeviceCookies; now?: () => number }): LoginThrottle {
  const { db, devices } = deps;
  const now = deps.now ?? Date.now;
  const rules = throttleRules(deps.config.auth);
  // Rows older than the longest window count for nobody.
  const keepMs = Math.max(rules.pair.windowMs, rules.address.windowMs, rules.account.windowMs, rules.device.windowMs);

  /** `origin` set: an email sign-in from an address without a device cookie, which the back-off judges. */
  async function start(
    subjects: ReturnType<typeof throttleSubjects>,
    origin: { account: string; address: string } | null = null,
  ): Promise<Begun> {
    const at = now();
    const ids = await insertLoginAttempt(
      db,
      subjects.map((s) => s.subject),
      at,
      origin ?? { account: null, address: null },
    );
    let retryAfterMs = 0;
    let scope: ThrottleScope = "address";
    let accountLocked = false;
    const refuse = (decision: ReturnType<typeof throttleDecision>, s: ThrottleScope) => {
      if (decision.allowed) return;
      if (s === "account") accountLocked = true;
      if (decision.retryAfterMs <= retryAfterMs) return;
      retryAfterMs = decision.retryAfterMs;
      scope = s;
    };
    for (const { subject, rule, scope: s } of subjects) {
      refuse(throttleDecision(await recentLoginFailures(db, subject, at - rule.windowMs, rule.maxFailures + 1), rule, at), s);
    }
    if (origin) {
      const failures = await addressFailures(db, `ip:${origin.address}`, at - rules.backoff.maxMs, ids, BACKOFF_READ);
      refuse(backoffDecision(failures, rules.backoff, at), "address");
    }
    if (retryAfterMs === 0) return { allowed: true, attempt: { ids } };
    // A refused attempt does not count: a persistent guesser must not extend the lock forever.
    await deleteLoginAttempts(db, ids);
    return { allowed: false, retryAfterSeconds: Math.ceil(retryAfterMs / 1000), scope, accountLocked, at };
  }

  return {
    begin(email, ip, cookies) {
      const device = devices.verify(cookies ?? null, email, now());
      const subjects = throttleSubjects(email, ip, rules, device);
      return start(subjects, device ? null : { account: accountKey(email), address: ip });
    },
    beginAddress: (kind, ip) => start([{ subject: `${kind}:${ip}`, rule: rules.pair, scope: "address" }]),
    async settle(attempt, outcome) {
      if (outcome === "failed") {
        await pruneLoginFailures(db, now() - keepMs);
        return;
      }
      await deleteLoginAttempts(db, attempt.ids);
    },
    deviceCookie: (email) => devices.issue(email, now()),
  };
}
