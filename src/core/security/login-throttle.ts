/**
 * Login throttling decisions (SPEC §9), pure: the caller records the attempt first, then reads the
 * subject's newest rows in the window (its own included) and asks whether it may proceed.
 */
import { createHash } from "node:crypto";

export interface ThrottleRule {
  /** Failed attempts allowed per window and subject; 0 turns throttling off. */
  maxFailures: number;
  windowMs: number;
}

/** Subjects counted for one attempt: the account (hashed: the table holds no emails) and the address. */
export function throttleSubjects(email: string, ip: string): string[] {
  const account = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  return [`account:${account}`, `ip:${ip}`];
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
