/**
 * Security headers of the running built server: a CSP whose scripts need a fresh per-request nonce
 * (every script of the page carries it; the theme boot script also has its hash), no framing, no
 * sniffing, same-origin referrers; HSTS and Secure cookies when PUBLIC_URL is https.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { THEME_BOOT_SCRIPT } from "../../src/ui/shell/theme-script.js";
import { startServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct horse battery";

function scriptSrc(csp: string): string {
  return csp.split(/;\s*/).find((d) => d.startsWith("script-src")) ?? "";
}

describe("security headers over http", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ dialect: "sqlite" });
    await server.cli("user", "create", "--email", "ann@example.com", "--password", PASSWORD, "--org", "acme");
  });
  afterAll(async () => server?.stop());

  test("pages: nonce-based CSP without unsafe-inline scripts, frame-ancestors 'none', nosniff, referrer policy", async () => {
    const first = await fetch(`${server.url}/login`);
    const second = await fetch(`${server.url}/login`);
    expect(first.status).toBe(200);
    const csp = first.headers.get("content-security-policy") ?? "";
    const script = scriptSrc(csp);
    expect(script).toMatch(/'nonce-[A-Za-z0-9+/=]{20,}'/);
    expect(script).not.toContain("unsafe-inline");
    expect(script).not.toContain("unsafe-eval");
    expect(script).toContain(`'sha256-${createHash("sha256").update(THEME_BOOT_SCRIPT).digest("base64")}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(first.headers.get("x-content-type-options")).toBe("nosniff");
    expect(first.headers.get("referrer-policy")).toBe("same-origin");
    expect(first.headers.get("x-frame-options")).toBe("DENY");
    expect(first.headers.get("strict-transport-security")).toBeNull();
    // A fresh nonce per request.
    expect(scriptSrc(second.headers.get("content-security-policy") ?? "")).not.toBe(script);

    // Every <script> in the page carries this request's nonce.
    const nonce = script.match(/'nonce-([^']+)'/)?.[1];
    const html = await first.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(1);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  });

  test("a nonce sent by the client is not used", async () => {
    const res = await fetch(`${server.url}/login`, { headers: { "content-security-policy": "script-src 'nonce-attacker'" } });
    expect(res.headers.get("content-security-policy")).not.toContain("attacker");
    expect(await res.text()).not.toContain('nonce="attacker"');
  });

  test("unknown paths and API answers carry the headers too", async () => {
    for (const path of ["/no/such/page/at/all", "/api/0/organizations/acme/"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  test("session cookie over http: HttpOnly, SameSite=Lax, not Secure", async () => {
    const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "ann@example.com", password: PASSWORD }),
    });
    const session = res.headers.getSetCookie().find((c) => c.includes("session_token=")) ?? "";
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(session).not.toMatch(/;\s*Secure/i);
  });
});

describe("security headers behind https (PUBLIC_URL https)", () => {
  let server: TestServer;
  const publicUrl = "https://errata.example.com";
  beforeAll(async () => {
    server = await startServer({ dialect: "sqlite", env: { PUBLIC_URL: publicUrl } });
    await server.cli("user", "create", "--email", "ann@example.com", "--password", PASSWORD, "--org", "acme");
  });
  afterAll(async () => server?.stop());

  test("HSTS, upgrade-insecure-requests and Secure __Secure- cookies", async () => {
    const page = await fetch(`${server.url}/login`);
    expect(page.headers.get("strict-transport-security")).toBe("max-age=31536000");
    expect(page.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
    const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: publicUrl },
      body: JSON.stringify({ email: "ann@example.com", password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    const session = res.headers.getSetCookie().find((c) => c.includes("session_token=")) ?? "";
    expect(session).toMatch(/^__Secure-better-auth\.session_token=/);
    expect(session).toMatch(/;\s*Secure/i);
    expect(session).toMatch(/HttpOnly/i);
  });
});
