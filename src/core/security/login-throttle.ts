/**
 * Login throttling decisions (SPEC §9), pure: the caller records the attempt first, then reads the
 * subject's newest rows in the window (its own included) and asks whether it may proceed.
 *
 * Whom an attempt counts against (issue 27: a lockout must hurt the attacker, not the owner):
 * - the (account, address) pair and the address: a guesser is stopped where they guess from,
 *   and the owner at their own address is not;
 * - the account alone only far above that and briefly (a distributed guess at one account);
 * - a browser carrying a valid device cookie for the account (it signed in before, OWASP's "device
 *   cookies") counts against that cookie only, so it keeps signing in while the account is locked.
 */
import { createHash } from "node:crypto";

export interface ThrottleRule {
  /** Failed attempts allowed per window and subject; 0 turns throttling off. */
  maxFailures: number;
  windowMs: number;
}

export interface ThrottleRules {
  /** per (account, client address) */
  pair: ThrottleRule;
  /** per client address, across accounts */
  address: ThrottleRule;
  /** per account from everywhere: far above `pair`, with a short window (a brief lock) */
  account: ThrottleRule;
  /** per device cookie (a browser that signed in to the account before) */
  device: ThrottleRule;
}

/** What a refusal is about: `account` is the global lock, `address` everything else. */
export type ThrottleScope = "address" | "account";

export interface ThrottleSubject {
  subject: string;
  rule: ThrottleRule;
  scope: ThrottleScope;
}

/** The account as the throttle table and device cookies name it (hashed: they hold no emails). */
export function accountKey(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("hex").slice(0, 32);
}

/** Subjects counted for one attempt; `deviceId` is set when the browser's device cookie is valid for this account. */
export function throttleSubjects(email: string, ip: string, rules: ThrottleRules, deviceId: string | null = null): ThrottleSubject[] {
  const account = accountKey(email);
  if (deviceId) return [{ subject: `device:${deviceId}`, rule: rules.device, scope: "address" }];
  return [
    { subject: `pair:${account}:${ip}`, rule: rules.pair, scope: "address" },
    { subject: `ip:${ip}`, rule: rules.address, scope: "address" },
    { subject: `account:${account}`, rule: rules.account, scope: "account" },
  ];
}

/**
 * `recent` are the `at` of the subject's rows inside the window, newest first, the caller's own
 * in-flight row among them, read with limit `maxFailures + 1`. More than `maxFailures` rows means
 * the limit was already reached by others: refuse, and say when the oldest of the blocking rows
 * leaves the window.
 */
export function throttleDecision(
  recent: number[],
  rule: ThrottleRule,
  now: number,
): { allowed: true } | { allowed: false; retryAfterMs: number } {
  if (rule.maxFailures <= 0 || recent.length <= rule.maxFailures) return { allowed: true };
  const blockingOldest = recent[rule.maxFailures] as number;
  return { allowed: false, retryAfterMs: Math.max(1000, blockingOldest + rule.windowMs - now) };
}
