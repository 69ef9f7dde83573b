import { expect, test } from "vitest";
import { accountKey, throttleDecision, throttleSubjects } from "./login-throttle";

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
