/**
 * Login throttling (SPEC §9, issue 27) against the built server on both databases: failures count
 * per (account, address) and per address, so a guesser is stopped where they guess from and the
 * owner is not; the account alone locks only far above that, briefly, and not for a browser that
 * signed in before (device cookie). Successes never count, the address comes from X-Forwarded-For
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
  /** the device cookie the server set (`name=value`), if any */
  device: string | null;
  body: { error?: { code?: string; message?: string } };
}

/** POST /api/auth/sign-in/email from a chosen local address, optionally through a forged proxy header. */
function signIn(
  base: string,
  email: string,
  password: string,
  opts: { from?: string; forwardedFor?: string; cookie?: string } = {},
): Promise<Answer> {
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
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
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
          const device = (res.headers["set-cookie"] ?? []).find((c) => c.startsWith("errata_device="))?.split(";")[0] ?? null;
          resolve({ status: res.statusCode ?? 0, retryAfter: typeof retry === "string" ? retry : null, device, body });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

// Per (account, address) and per address 3; the account alone only past 12, for two minutes.
const LIMITS = {
  LOGIN_MAX_ATTEMPTS: "3",
  LOGIN_MAX_ATTEMPTS_PER_ADDRESS: "3",
  LOGIN_ACCOUNT_LOCK_ATTEMPTS: "12",
  LOGIN_ACCOUNT_LOCK_SECONDS: "120",
};

describe.each(await dialects())("login throttling on %s", (dialect) => {
  let server: TestServer;
  let second: TestServer;

  beforeAll(async () => {
    // 127.0.0.1 plays the reverse proxy; requests from 127.0.0.2 are direct, untrusted clients.
    server = await startServer({ dialect, env: { ...LIMITS, TRUSTED_PROXIES: "127.0.0.1" } });
    for (const who of ["ann", "bob", "cat", "dan", "eve", "fay"]) {
      await server.cli("user", "create", "--email", `${who}@example.com`, "--password", PASSWORD, "--org", "acme");
    }
    // A second web-only process on the same database: counters live in the database.
    second = await startServer({
      db: server.db,
      env: { ...LIMITS, TRUSTED_PROXIES: "127.0.0.1", ERRATA_ROLES: "web" },
    });
  });
  afterAll(async () => {
    await second?.stop();
    await server?.stop();
  });

  test("ten failures from ten addresses do not lock the owner out of their own address", async () => {
    for (let i = 0; i < 10; i++) {
      const r = await signIn(server.url, "ann@example.com", "wrong password!!", { forwardedFor: `198.51.100.${i + 1}` });
      expect(r.status).toBe(401);
    }
    // The owner, from the address they always use, without any cookie, on either process.
    expect((await signIn(server.url, "ann@example.com", PASSWORD, { forwardedFor: "198.51.100.200" })).status).toBe(200);
    expect((await signIn(second.url, "ann@example.com", PASSWORD, { forwardedFor: "198.51.100.201" })).status).toBe(200);
  });

  test("the guesser's address is throttled for that account (sign_in_throttled), the owner's is not", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await signIn(server.url, "bob@example.com", "wrong password!!", { forwardedFor: "198.51.100.66" })).status).toBe(401);
    }
    // Even the right password from the guesser's address is refused now, by the other process too.
    const refused = await signIn(second.url, "bob@example.com", PASSWORD, { forwardedFor: "198.51.100.66" });
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe("sign_in_throttled");
    expect(refused.body.error?.message).toMatch(/Too many failed sign-in attempts.*Try again in 15 minutes/);
    expect(Number(refused.retryAfter)).toBeGreaterThan(800);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(900);
    expect((await signIn(server.url, "bob@example.com", PASSWORD, { forwardedFor: "198.51.100.67" })).status).toBe(200);
  });

  test("far above that the account locks for everyone, briefly (account_locked), but not for a browser that signed in before", async () => {
    const before = await signIn(server.url, "eve@example.com", PASSWORD, { forwardedFor: "192.0.2.80" });
    expect(before.status).toBe(200);
    expect(before.device).toMatch(/^errata_device=v1\./);
    const other = (await signIn(server.url, "fay@example.com", PASSWORD, { forwardedFor: "192.0.2.80" })).device ?? "";
    // Thirteen addresses, one wrong guess each: the account's global count passes 12.
    for (let i = 0; i < 13; i++) {
      const r = await signIn(server.url, "eve@example.com", "wrong password!!", { forwardedFor: `203.0.113.${100 + i}` });
      expect(r.status).toBe(i < 12 ? 401 : 429);
    }
    const locked = await signIn(server.url, "eve@example.com", PASSWORD, { forwardedFor: "192.0.2.81" });
    expect(locked.status).toBe(429);
    expect(locked.body.error?.code).toBe("account_locked");
    expect(Number(locked.retryAfter)).toBeGreaterThan(60);
    expect(Number(locked.retryAfter)).toBeLessThanOrEqual(120);
    // The device cookie: this browser signs in, on either process, while the account is locked.
    expect(
      (await signIn(server.url, "eve@example.com", PASSWORD, { forwardedFor: "192.0.2.80", cookie: before.device ?? "" })).status,
    ).toBe(200);
    expect(
      (await signIn(second.url, "eve@example.com", PASSWORD, { forwardedFor: "192.0.2.82", cookie: before.device ?? "" })).status,
    ).toBe(200);
    // A forged, altered or another account's cookie does not.
    const altered = `${(before.device ?? "").slice(0, -2)}xx`;
    for (const cookie of [altered, other, "errata_device=v1.0.0.0.0"]) {
      const r = await signIn(server.url, "eve@example.com", PASSWORD, { forwardedFor: "192.0.2.80", cookie });
      expect(r.body.error?.code).toBe("account_locked");
    }
  });

  test("failures from one address across many accounts lock that address only", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await signIn(server.url, `nobody${i}@example.com`, "wrong password!!", { forwardedFor: "203.0.113.66" })).status).toBe(401);
    }
    const blocked = await signIn(second.url, "cat@example.com", PASSWORD, { forwardedFor: "203.0.113.66" });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error?.code).toBe("sign_in_throttled");
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
