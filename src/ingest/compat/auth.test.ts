import { describe, expect, test } from "vitest";
import { AppError } from "../../core/errors";
import { keyFromAuthHeader, keyFromQuery, requestKey, resolveEnvelopeAuth } from "./auth";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
  return undefined;
}

describe("auth header grammar (reference §1.3)", () => {
  test("X-Sentry-Auth with spaces, versions and extra keys", () => {
    expect(keyFromAuthHeader("Sentry sentry_key=abc, sentry_version=7, sentry_client=sentry.python/2.0")).toBe("abc");
    expect(keyFromAuthHeader("Sentry sentry_version=7.0,sentry_key= abc ,sentry_secret=s")).toBe("abc");
    expect(keyFromAuthHeader("sentry sentry_key=abc")).toBe("abc");
    expect(keyFromAuthHeader("SENTRY sentry_key=abc, unknown=1")).toBe("abc");
  });
  test("not Sentry auth → undefined (Bearer tokens are API auth)", () => {
    expect(keyFromAuthHeader(undefined)).toBeUndefined();
    expect(keyFromAuthHeader("Bearer sntrys_abc")).toBeUndefined();
    expect(keyFromAuthHeader("Basic Zm9vOmJhcg==")).toBeUndefined();
  });
  test("Sentry header without a key → missing_auth", () => {
    expect(code(() => keyFromAuthHeader("Sentry sentry_version=7"))).toBe("missing_auth");
    expect(code(() => keyFromAuthHeader("Sentry sentry_key=, sentry_version=7"))).toBe("missing_auth");
  });
  test("query string", () => {
    expect(keyFromQuery("sentry_version=7&sentry_key=abc&sentry_client=sentry.javascript.node%2F11.12.0")).toBe("abc");
    expect(keyFromQuery("hsts=0")).toBeUndefined();
    expect(keyFromQuery("")).toBeUndefined();
    expect(code(() => keyFromQuery("sentry_key="))).toBe("missing_auth");
  });
  test("absurdly long keys are rejected before any lookup", () => {
    expect(code(() => keyFromQuery(`sentry_key=${"a".repeat(500)}`))).toBe("invalid_dsn");
  });
});

describe("requestKey: several carriers", () => {
  test("each carrier alone", () => {
    expect(requestKey("Sentry sentry_key=a", undefined, "")).toBe("a");
    expect(requestKey(undefined, "Sentry sentry_key=a", "")).toBe("a");
    expect(requestKey(undefined, undefined, "sentry_key=a")).toBe("a");
    expect(requestKey(undefined, "Bearer x", "hsts=0")).toBeUndefined();
  });
  test("agreeing carriers are accepted, disagreeing ones → invalid_dsn", () => {
    expect(requestKey("Sentry sentry_key=a", "Sentry sentry_key=a", "sentry_key=a")).toBe("a");
    expect(code(() => requestKey("Sentry sentry_key=a", undefined, "sentry_key=b"))).toBe("invalid_dsn");
    expect(code(() => requestKey("Sentry sentry_key=a", "Sentry sentry_key=b", ""))).toBe("invalid_dsn");
  });
});

describe("resolveEnvelopeAuth: envelope header dsn (tunnels)", () => {
  test("no carrier at all → missing_auth", () => {
    expect(code(() => resolveEnvelopeAuth(undefined, undefined, 42))).toBe("missing_auth");
  });
  test("request key alone", () => {
    expect(resolveEnvelopeAuth("a", undefined, 42)).toBe("a");
  });
  test("dsn alone must name the path's project", () => {
    expect(resolveEnvelopeAuth(undefined, "http://a@h:9000/42", 42)).toBe("a");
    expect(code(() => resolveEnvelopeAuth(undefined, "http://a@h:9000/43", 42))).toBe("invalid_dsn");
  });
  test("dsn and request key must agree", () => {
    expect(resolveEnvelopeAuth("a", "https://a@h/42", 42)).toBe("a");
    expect(code(() => resolveEnvelopeAuth("b", "https://a@h/42", 42))).toBe("invalid_dsn");
  });
  test("an unparsable dsn → invalid_dsn", () => {
    expect(code(() => resolveEnvelopeAuth(undefined, "garbage", 42))).toBe("invalid_dsn");
    expect(code(() => resolveEnvelopeAuth("a", 17, 42))).toBe("invalid_dsn");
  });
});
