/**
 * Login throttling (SPEC §9) against the built server on both databases: failures count per
 * account and per client address, successes never count, the address comes from X-Forwarded-For
 * only through a trusted proxy, and a second web process sharing the database sees the same counts.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

const PASSWORD = "correct horse battery";

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { error?: { code?: string; message?: string } };
}

/** POST /api/auth/sign-in/email from a chosen local address, optionally through a forged proxy header. */
function signIn(base: string, email: string, password: string, opts: { from?: string; forwardedFor?: string } = {}): Promise<Answer> {
  const url = new URL("/api/auth/sign-in/email", base);
  const payload = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        localAddress: opts.from ?? "127.0.0.1",
        headers: {
          "content-type": "application/json",
          origin: base,
          ...(opts.forwardedFor ? { "x-forwarded-for": opts.forwardedFor } : {}),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => {
          text += d;
        });
        res.on("end", () => {
          let body: Answer["body"] = {};
          try {
            body = JSON.parse(text) as Answer["body"];
          } catch {
            // not JSON: leave empty
          }
          const retry = res.headers["retry-after"];
          resolve({ status: res.statusCode ?? 0, retryAfter: typeof retry === "string" ? retry : null, body });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe.each(await dialects())("login throttling on %s", (dialect) => {
  let server: TestServer;
  let second: TestServer;

  beforeAll(async () => {
    // 127.0.0.1 plays the reverse proxy; requests from 127.0.0.2 are direct, untrusted clients.
    server = await startServer({ dialect, env: { LOGIN_MAX_ATTEMPTS: "3", TRUSTED_PROXIES: "127.0.0.1" } });
    for (const who of ["ann", "bob", "cat", "dan"]) {
      await server.cli("user", "create", "--email", `${who}@example.com`, "--password", PASSWORD, "--org", "acme");
    }
    // A second web-only process on the same database: counters live in the database.
    second = await startServer({
      db: server.db,
      env: { LOGIN_MAX_ATTEMPTS: "3", TRUSTED_PROXIES: "127.0.0.1", ERRATA_ROLES: "web" },
    });
  });
  afterAll(async () => {
    await second?.stop();
    await server?.stop();
  });

  test("failures lock the account for every address and every process; other accounts are unaffected", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await signIn(server.url, "ann@example.com", "wrong password!!", { forwardedFor: `198.51.100.${i + 1}` });
      expect(r.status).toBe(401);
    }
    // The right password from a fresh address is refused now: the account is throttled.
    const locked = await signIn(server.url, "ann@example.com", PASSWORD, { forwardedFor: "198.51.100.50" });
    expect(locked.status).toBe(429);
    expect(locked.body.error?.code).toBe("rate_limited");
    expect(locked.body.error?.message).toMatch(/Too many failed sign-in attempts.*Try again in 15 minutes/);
    expect(Number(locked.retryAfter)).toBeGreaterThan(800);
    expect(Number(locked.retryAfter)).toBeLessThanOrEqual(900);
    // The other process shares the count.
    expect((await signIn(second.url, "ann@example.com", PASSWORD, { forwardedFor: "198.51.100.51" })).status).toBe(429);
    // Another account from the same addresses signs in.
    expect((await signIn(server.url, "bob@example.com", PASSWORD, { forwardedFor: "198.51.100.1" })).status).toBe(200);
  });

  test("failures from one address across many accounts lock that address only", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await signIn(server.url, `nobody${i}@example.com`, "wrong password!!", { forwardedFor: "203.0.113.66" })).status).toBe(401);
    }
    const blocked = await signIn(second.url, "cat@example.com", PASSWORD, { forwardedFor: "203.0.113.66" });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error?.code).toBe("rate_limited");
    // The same account from another address is fine: cat never failed.
    expect((await signIn(server.url, "cat@example.com", PASSWORD, { forwardedFor: "203.0.113.67" })).status).toBe(200);
  });

  test("successes are not counted: a team behind one proxy signs in again and again", async () => {
    const via = { forwardedFor: "192.0.2.10" };
    expect((await signIn(server.url, "dan@example.com", "wrong password!!", via)).status).toBe(401);
    expect((await signIn(server.url, "dan@example.com", "wrong password!!", via)).status).toBe(401);
    for (let i = 0; i < 8; i++) {
      const who = ["bob", "cat", "dan"][i % 3];
      expect((await signIn(server.url, `${who}@example.com`, PASSWORD, via)).status).toBe(200);
    }
    // Had the eight successes counted, this would be refused; it is the third failure, allowed.
    expect((await signIn(server.url, "dan@example.com", "wrong password!!", via)).status).toBe(401);
    expect((await signIn(server.url, "dan@example.com", PASSWORD, via)).status).toBe(429);
  });

  test("X-Forwarded-For from an untrusted peer is ignored: forging addresses does not escape the limit", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await signIn(server.url, `ghost${i}@example.com`, "wrong password!!", { from: "127.0.0.2", forwardedFor: `10.9.9.${i}` });
      expect(r.status).toBe(401);
    }
    const r = await signIn(server.url, "bob@example.com", PASSWORD, { from: "127.0.0.2", forwardedFor: "10.9.9.200" });
    expect(r.status).toBe(429);
    // Through the trusted proxy the real client 127.0.0.2 is not the one counted.
    expect((await signIn(server.url, "bob@example.com", PASSWORD, { forwardedFor: "10.9.9.201" })).status).toBe(200);
  });
});
