import { describe, expect, test } from "vitest";
import { normaliseBaseUrl, retryAfterSeconds } from "./sentry-client";

describe("sentry client helpers", () => {
  test("Retry-After: seconds, HTTP date, absent (growing backoff)", () => {
    expect(retryAfterSeconds("3", 0)).toBe(3);
    expect(retryAfterSeconds(new Date(10_000).toUTCString(), 0, 4_000)).toBe(6);
    expect(retryAfterSeconds(undefined, 0)).toBe(1);
    expect(retryAfterSeconds(undefined, 3)).toBe(8);
    expect(retryAfterSeconds("soon", 10)).toBe(30);
  });
  test("base URL: trailing slash and /api/0 tolerated; other schemes refused", () => {
    expect(normaliseBaseUrl("https://sentry.example.com/")).toBe("https://sentry.example.com");
    expect(normaliseBaseUrl("https://example.com/sentry/api/0/")).toBe("https://example.com/sentry");
    expect(() => normaliseBaseUrl("ftp://x")).toThrow(/http/);
    expect(() => normaliseBaseUrl("nope")).toThrow();
  });
});
