import { expect, test } from "vitest";
import { throttleDecision, throttleSubjects } from "./login-throttle";

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

test("subjects: the account is hashed and case-insensitive, the address kept", () => {
  const [account, ip] = throttleSubjects(" Ann@Example.com ", "203.0.113.9");
  expect(account).toBe(throttleSubjects("ann@example.com", "x")[0]);
  expect(account).not.toContain("ann");
  expect(ip).toBe("ip:203.0.113.9");
});
