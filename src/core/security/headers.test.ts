import { expect, test } from "vitest";
import { contentSecurityPolicy, nonceFromPolicy, securityHeaders } from "./headers";

const base = { nonce: "abc123==", scriptHashes: ["sha256-xyz="], https: false, dev: false };

test("scripts need the nonce or a known hash: no unsafe-inline, no eval in production", () => {
  const csp = contentSecurityPolicy(base);
  const script = csp.split("; ").find((d) => d.startsWith("script-src")) ?? "";
  expect(script).toBe("script-src 'self' 'nonce-abc123==' 'sha256-xyz='");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).not.toContain("upgrade-insecure-requests");
  expect(contentSecurityPolicy({ ...base, dev: true })).toContain("'unsafe-eval'");
});

test("HSTS and upgrade-insecure-requests only over https", () => {
  expect(securityHeaders(base)["strict-transport-security"]).toBeUndefined();
  const https = securityHeaders({ ...base, https: true });
  expect(https["strict-transport-security"]).toBe("max-age=31536000");
  expect(https["content-security-policy"]).toContain("upgrade-insecure-requests");
  expect(https).toMatchObject({ "x-content-type-options": "nosniff", "referrer-policy": "same-origin", "x-frame-options": "DENY" });
});

test("the nonce reads back from the policy", () => {
  expect(nonceFromPolicy(contentSecurityPolicy(base))).toBe("abc123==");
  expect(nonceFromPolicy("default-src 'self'")).toBeUndefined();
  expect(nonceFromPolicy(null)).toBeUndefined();
});
