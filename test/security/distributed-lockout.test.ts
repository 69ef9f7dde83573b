/**
 * A distributed attempt costs the attacker, not the victim (issue 39 item 6), on both databases
 * against the built server with a real SMTP server: failures from many addresses lock the account
 * for new browsers; its owner is mailed a notice with a one-time link; the victim, from a new
 * address and a browser that never signed in, confirms the link and signs in with the password
 * while the lock holds. The attacking addresses wait longer with every failure past a few, sooner
 * when they fail on several accounts — an address that only typed one password wrong twice does not.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox.js";
import { dialects } from "../helpers/test-db.js";

const PASSWORD = "correct horse battery";
const WRONG = "wrong password!!";

interface Answer {
  status: number;
  retryAfter: number | null;
  /** the device cookie the server set (`name=value`), if any */
  device: string | null;
  body: { error?: { code?: string; message?: string } };
}

/** A request through the trusted proxy (127.0.0.1) on behalf of `from` (X-Forwarded-For). */
function post(base: string, path: string, body: unknown, opts: { from: string; cookie?: string }): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: base,
          "x-forwarded-for": opts.from,
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => {
          text += d;
        });
        res.on("end", () => {
          let parsed: Answer["body"] = {};
          try {
            parsed = JSON.parse(text) as Answer["body"];
          } catch {
            // not JSON
          }
          const retry = res.headers["retry-after"];
          const device = (res.headers["set-cookie"] ?? []).find((c) => c.startsWith("errata_device="))?.split(";")[0] ?? null;
          resolve({ status: res.statusCode ?? 0, retryAfter: typeof retry === "string" ? Number(retry) : null, device, body: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const signIn = (base: string, email: string, password: string, opts: { from: string; cookie?: string }) =>
  post(base, "/api/auth/sign-in/email", { email, password }, opts);

// Realistic per-address and per-pair limits (10, 30); the account lock scaled down to 12 failures
// for ten minutes; back-off after 2 failures of an address, from a minute (far longer than the test).
const LIMITS = {
  LOGIN_MAX_ATTEMPTS: "10",
  LOGIN_MAX_ATTEMPTS_PER_ADDRESS: "30",
  LOGIN_ACCOUNT_LOCK_ATTEMPTS: "12",
  LOGIN_ACCOUNT_LOCK_SECONDS: "600",
  LOGIN_BACKOFF_AFTER: "2",
  LOGIN_BACKOFF_SECONDS: "60",
  TRUSTED_PROXIES: "127.0.0.1",
};

describe.each(await dialects())("a distributed sign-in attack on %s", (dialect) => {
  let server: TestServer;
  let inbox: SmtpInbox;

  beforeAll(async () => {
    inbox = await startSmtpInbox();
    server = await startServer({ dialect, env: { ...LIMITS, ...inbox.env } });
    for (const who of ["vic", "val"]) {
      await server.cli("user", "create", "--email", `${who}@example.com`, "--password", PASSWORD, "--org", "acme");
    }
  });
  afterAll(async () => {
    await server?.stop();
    await inbox?.close();
  });

  test("locked for new browsers, the owner mailed a one-time link, the victim signs in from a new address and browser", async () => {
    // Four addresses, three wrong passwords each: twelve failures reach the account lock.
    const attackers = ["203.0.113.10", "203.0.113.11", "203.0.113.12", "203.0.113.13"];
    for (const from of attackers) {
      for (let i = 0; i < 3; i++) expect((await signIn(server.url, "vic@example.com", WRONG, { from })).status).toBe(401);
    }
    // More addresses find it locked (refused before any password check, not counted).
    for (let i = 0; i < 4; i++) {
      const r = await signIn(server.url, "vic@example.com", WRONG, { from: `198.51.100.${40 + i}` });
      expect(r.body.error?.code).toBe("account_locked");
    }

    // The victim: a new address, a browser that never signed in, the right password.
    const victim = { from: "192.0.2.150" };
    const locked = await signIn(server.url, "vic@example.com", PASSWORD, victim);
    expect(locked.status).toBe(429);
    expect(locked.body.error?.code).toBe("account_locked");
    expect(locked.body.error?.message).toMatch(/e-mailed a link that lets another browser sign in/);

    // The owner's mailbox: one notice, with the counts and the link.
    const mail = await eventually(async () => inbox.mailsTo("vic@example.com")[0], 20_000, "the lock notice");
    expect(mail.subject).toBe("Failed sign-ins to your Errata account");
    expect(mail.text).toMatch(/There were 12 failed sign-ins to your Errata account \(vic@example\.com\) from 4 addresses/);
    const link = new URL(/(http:\/\/\S+\/known-device\/\S+)/.exec(mail.text ?? "")?.[1] ?? "");
    expect(link.origin).toBe(server.url);
    const token = decodeURIComponent(link.pathname.split("/").pop() ?? "");

    // Opening the link (a mail scanner would) shows the page and uses nothing up.
    for (let i = 0; i < 2; i++) {
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Let this browser sign in");
    }
    // Confirmed from the victim's browser: it gets the device cookie, then signs in despite the lock.
    const confirmed = await post(server.url, "/api/auth/known-device", { token }, victim);
    expect(confirmed.status).toBe(200);
    expect(confirmed.device).toMatch(/^errata_device=v1\./);
    const signedIn = await signIn(server.url, "vic@example.com", PASSWORD, { ...victim, cookie: confirmed.device ?? "" });
    expect(signedIn.status).toBe(200);
    // The lock still holds for everyone else, and the link worked once.
    expect((await signIn(server.url, "vic@example.com", PASSWORD, { from: "192.0.2.151" })).body.error?.code).toBe("account_locked");
    const again = await post(server.url, "/api/auth/known-device", { token }, { from: "192.0.2.152" });
    expect(again.status).toBe(410);
    expect(again.body.error?.code).toBe("known_device_link_invalid");
    expect((await fetch(link).then((r) => r.text())).includes("This link no longer works")).toBe(true);
    // A forged or altered link does nothing.
    for (const bad of [`${token.slice(0, -2)}xx`, "a.b.c.d", ""]) {
      expect((await post(server.url, "/api/auth/known-device", { token: bad }, victim)).status).toBe(410);
    }
    // One notice per window, however many refusals followed.
    expect(inbox.mailsTo("vic@example.com")).toHaveLength(1);
  });

  test("the attacking addresses are slowed, more when they fail on several accounts; a typo costs nothing", async () => {
    // An address with three failures on one account waits about a minute before any next try, on any account.
    const guesser = "203.0.113.30";
    for (let i = 0; i < 3; i++) expect((await signIn(server.url, "val@example.com", WRONG, { from: guesser })).status).toBe(401);
    const slowed = await signIn(server.url, "val@example.com", PASSWORD, { from: guesser });
    expect(slowed.status).toBe(429);
    expect(slowed.body.error?.code).toBe("sign_in_throttled");
    expect(slowed.retryAfter).toBeGreaterThan(30);
    expect(slowed.retryAfter).toBeLessThanOrEqual(60);
    expect(slowed.body.error?.message).toMatch(/Try again in \d+ seconds/);

    // An address going down a list of accounts: after two, its wait is already twice as long.
    const stuffer = "203.0.113.31";
    for (const who of ["list1", "list2"]) {
      expect((await signIn(server.url, `${who}@example.com`, WRONG, { from: stuffer })).status).toBe(401);
    }
    const stuffed = await signIn(server.url, "list3@example.com", WRONG, { from: stuffer });
    expect(stuffed.status).toBe(429);
    expect(stuffed.retryAfter).toBeGreaterThan(90);
    expect(stuffed.retryAfter).toBeLessThanOrEqual(120);

    // The owner, meanwhile, from their own address: two typos, then in.
    const owner = { from: "192.0.2.160" };
    for (let i = 0; i < 2; i++) expect((await signIn(server.url, "val@example.com", WRONG, owner)).status).toBe(401);
    expect((await signIn(server.url, "val@example.com", PASSWORD, owner)).status).toBe(200);
  });
});
