/**
 * Login throttling (SPEC §9) over the database: failures per account and per client address,
 * shared by every web process. An attempt is recorded before the password is checked (so parallel
 * guesses count against each other), then forgotten when it was not a wrong password.
 */
import type { Config } from "../../config";
import { throttleDecision, throttleSubjects } from "../../core/security/login-throttle";
import type { Db } from "../../storage/db";
import { deleteLoginAttempts, insertLoginAttempt, pruneLoginFailures, recentLoginFailures } from "../../storage/members/login-failures";

export type LoginAttempt = { ids: number[] };

export interface LoginThrottle {
  begin(email: string, ip: string): Promise<{ allowed: true; attempt: LoginAttempt } | { allowed: false; retryAfterSeconds: number }>;
  /** The same rule for guesses that name no account (invitation links): counted per client address only. */
  beginAddress(kind: string, ip: string): Promise<{ allowed: true; attempt: LoginAttempt } | { allowed: false; retryAfterSeconds: number }>;
  /** `failed`: a wrong email or password, which counts; anything else (success, bad input) does not. */
  settle(attempt: LoginAttempt, outcome: "failed" | "not_counted"): Promise<void>;
}

export function createLoginThrottle(deps: { db: Db; config: Config; now?: () => number }): LoginThrottle {
  const { db } = deps;
  const now = deps.now ?? Date.now;
  const rule = { maxFailures: deps.config.auth.loginMaxAttempts, windowMs: deps.config.auth.loginWindowSeconds * 1000 };

  async function start(subjects: string[]) {
    const at = now();
    const ids = await insertLoginAttempt(db, subjects, at);
    let retryAfterMs = 0;
    for (const subject of subjects) {
      const decision = throttleDecision(await recentLoginFailures(db, subject, at - rule.windowMs, rule.maxFailures + 1), rule, at);
      if (!decision.allowed) retryAfterMs = Math.max(retryAfterMs, decision.retryAfterMs);
    }
    if (retryAfterMs === 0) return { allowed: true as const, attempt: { ids } };
    // A refused attempt does not count: a persistent guesser must not extend the lock forever.
    await deleteLoginAttempts(db, ids);
    return { allowed: false as const, retryAfterSeconds: Math.ceil(retryAfterMs / 1000) };
  }

  return {
    begin: (email, ip) => start(throttleSubjects(email, ip)),
    beginAddress: (kind, ip) => start([`${kind}:${ip}`]),
    async settle(attempt, outcome) {
      if (outcome === "failed") {
        await pruneLoginFailures(db, now() - rule.windowMs);
        return;
      }
      await deleteLoginAttempts(db, attempt.ids);
    },
  };
}
