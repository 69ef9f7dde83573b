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
 *
 * And what a distributed attempt costs (issue 39: a dozen addresses locked a victim out of new
 * browsers): each address that keeps failing waits longer before its next try — doubling per
 * failure past a few, and faster for an address that fails on several accounts (credential
 * stuffing) — so the attacker's addresses slow down while the owner's new address does not.
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
  /** the growing wait of an address that keeps failing */
  backoff: BackoffRule;
}

export interface BackoffRule {
  /** failures of one address on one account before it waits at all (typos); 0 turns back-off off */
  afterFailures: number;
  /** the first wait; each further failure doubles it */
  baseMs: number;
  /** the longest wait (the throttle window: older failures are forgotten anyway) */
  maxMs: number;
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

/**
 * The wait of an address before its next attempt. `failures` are the address's failures in the
 * window, newest first (the attempt being judged not among them), each with the account it aimed
 * at. Strikes: the failures past `afterFailures`, plus two for every account beyond the first, so
 * a typo at a shared office address costs seconds and a guesser going down a list of accounts
 * soon waits the whole window. The wait doubles per strike from `baseMs`, up to `maxMs`, counted
 * from the newest failure.
 */
export function backoffDecision(
  failures: Array<{ at: number; account: string | null }>,
  rule: BackoffRule,
  now: number,
): { allowed: true } | { allowed: false; retryAfterMs: number } {
  if (rule.afterFailures <= 0 || failures.length === 0) return { allowed: true };
  const accounts = new Set(failures.map((f) => f.account ?? "")).size;
  const strikes = failures.length - rule.afterFailures + 2 * (accounts - 1);
  if (strikes <= 0) return { allowed: true };
  const waitMs = Math.min(rule.maxMs, rule.baseMs * 2 ** Math.min(strikes - 1, 40));
  const until = (failures[0] as { at: number }).at + waitMs;
  if (now >= until) return { allowed: true };
  return { allowed: false, retryAfterMs: Math.max(1000, until - now) };
}
