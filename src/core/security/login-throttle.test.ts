import { describe, expect, test } from "vitest";
import { accountKey, backoffDecision, throttleDecision, throttleSubjects } from "./login-throttle";

const rule = { maxFailures: 3, windowMs: 60_000 };

test("up to the limit of earlier failures plus the attempt itself passes", () => {
  expect(throttleDecision([1000], rule, 1000)).toEqual({ allowed: true });
  expect(throttleDecision([4000, 3000, 2000, 1000], { ...rule, maxFailures: 4 }, 4000)).toEqual({ allowed: true });
});

test("past the limit it is refused until the oldest blocking failure leaves the window", () => {
  // own row at 10s, three earlier failures at 9, 5 and 2 s: wait until 2 s + 60 s.
  expect(throttleDecision([10_000, 9000, 5000, 2000], rule, 10_000)).toEqual({ allowed: false, retryAfterMs: 52_000 });
});

test("0 turns throttling off", () => {
  expect(throttleDecision([5, 4, 3, 2, 1], { ...rule, maxFailures: 0 }, 5)).toEqual({ allowed: true });
});

const RULES = {
  pair: { maxFailures: 10, windowMs: 900_000 },
  address: { maxFailures: 20, windowMs: 900_000 },
  account: { maxFailures: 100, windowMs: 300_000 },
  device: { maxFailures: 10, windowMs: 900_000 },
  backoff: { afterFailures: 5, baseMs: 2000, maxMs: 900_000 },
};

test("subjects: the account is hashed and case-insensitive, the address kept; pair, address and the global account", () => {
  const [pair, ip, account] = throttleSubjects(" Ann@Example.com ", "203.0.113.9", RULES);
  expect(pair?.subject).toBe(`pair:${accountKey("ann@example.com")}:203.0.113.9`);
  expect(account?.subject).toBe(throttleSubjects("ann@example.com", "x", RULES)[2]?.subject);
  expect(account).toMatchObject({ scope: "account", rule: RULES.account });
  expect(JSON.stringify([pair, account])).not.toContain("ann");
  expect(ip).toMatchObject({ subject: "ip:203.0.113.9", rule: RULES.address, scope: "address" });
});

test("a browser with a valid device cookie counts against that cookie only, never the account's global lock", () => {
  expect(throttleSubjects("ann@example.com", "203.0.113.9", RULES, "n0nce")).toEqual([
    { subject: "device:n0nce", rule: RULES.device, scope: "address" },
  ]);
});

describe("back-off of an address that keeps failing (issue 39)", () => {
  const B = RULES.backoff;
  /** `n` failures one second apart ending at `last`, newest first, over `accounts` accounts. */
  const failures = (n: number, last: number, accounts = 1) =>
    Array.from({ length: n }, (_, i) => ({ at: last - i * 1000, account: `acct${i % accounts}` }));

  test("a few typos cost nothing; past them the wait doubles per failure, counted from the newest", () => {
    expect(backoffDecision([], B, 0)).toEqual({ allowed: true });
    expect(backoffDecision(failures(5, 10_000), B, 10_000)).toEqual({ allowed: true });
    expect(backoffDecision(failures(6, 10_000), B, 10_000)).toEqual({ allowed: false, retryAfterMs: 2000 });
    expect(backoffDecision(failures(6, 10_000), B, 12_000)).toEqual({ allowed: true });
    expect(backoffDecision(failures(8, 10_000), B, 10_000)).toEqual({ allowed: false, retryAfterMs: 8000 });
    expect(backoffDecision(failures(30, 10_000), B, 10_000)).toEqual({ allowed: false, retryAfterMs: 900_000 });
  });

  test("failing on several accounts (a list of accounts, one address) adds two strikes per account", () => {
    // Three failures on one account: free. On three accounts: 3 - 5 + 4 = 2 strikes, 4 s.
    expect(backoffDecision(failures(3, 10_000, 1), B, 10_000)).toEqual({ allowed: true });
    expect(backoffDecision(failures(3, 10_000, 3), B, 10_000)).toEqual({ allowed: false, retryAfterMs: 4000 });
    // Ten accounts, one try each: 10 - 5 + 18 = 23 strikes, the whole window.
    expect(backoffDecision(failures(10, 10_000, 10), B, 10_000)).toEqual({ allowed: false, retryAfterMs: 900_000 });
  });

  test("0 turns it off; a wait is at least a second (Retry-After is in seconds)", () => {
    expect(backoffDecision(failures(50, 0, 50), { ...B, afterFailures: 0 }, 0)).toEqual({ allowed: true });
    expect(backoffDecision(failures(6, 10_000), B, 11_500)).toEqual({ allowed: false, retryAfterMs: 1000 });
  });
});
