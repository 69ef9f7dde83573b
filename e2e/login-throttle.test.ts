/**
 * The login page under throttling, in Chromium: wrong passwords say so, and past the limit the
 * page shows the server's catalogued `sign_in_throttled` message with the wait — even for the right
 * password. Screenshots of that state in light and dark (docs/screenshots/login-throttled-*.png).
 * And the way back in while an account is locked from many addresses (issue 39): the owner, in a
 * browser that never signed in, opens the mailed link, confirms, and signs in with the password
 * (docs/screenshots/known-device-*.png).
 */
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { type SmtpInbox, startSmtpInbox } from "../test/helpers/smtp-inbox.js";

const canRun = chromiumAvailable();
const PASSWORD = "correct horse battery";

describe.skipIf(!canRun)("login throttling in the browser", () => {
  let server: TestServer;
  let browser: Browser;
  let inbox: SmtpInbox;

  beforeAll(async () => {
    inbox = await startSmtpInbox();
    server = await startServer({
      env: {
        LOGIN_MAX_ATTEMPTS: "2",
        LOGIN_MAX_ATTEMPTS_PER_ADDRESS: "2",
        // The account lock after 4 failures from everywhere; the test itself plays the proxy for the attackers.
        LOGIN_ACCOUNT_LOCK_ATTEMPTS: "4",
        LOGIN_ACCOUNT_LOCK_SECONDS: "600",
        TRUSTED_PROXIES: "127.0.0.1",
        ...inbox.env,
      },
    });
    await server.cli("user", "create", "--email", "ann@example.com", "--password", PASSWORD, "--org", "acme");
    await server.cli("user", "create", "--email", "vic@example.com", "--password", PASSWORD, "--org", "acme");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await inbox?.close();
  });

  test("two wrong passwords, then the sign_in_throttled message even for the right one", async () => {
    for (const scheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1100, height: 700 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/login`);
      const email = scheme === "light" ? "ann@example.com" : "nobody@example.com";
      const alert = page.locator("form [role=alert]");
      const alertText = async () => ((await alert.count()) > 0 ? await alert.innerText() : "");
      const submit = page.getByRole("button", { name: /sign in/i });
      if (scheme === "light") {
        for (let i = 0; i < 2; i++) {
          await page.getByLabel(/email/i).fill(email);
          await page.getByLabel(/password/i).fill("wrong password!!");
          await submit.click();
          await expect.poll(alertText, { timeout: 10_000 }).toMatch(/incorrect/i);
          await expect.poll(() => submit.isEnabled(), { timeout: 10_000 }).toBe(true);
        }
      }
      // The account (light) or the address (dark: same browser, same 127.0.0.1) is throttled now.
      await page.getByLabel(/email/i).fill(email);
      await page.getByLabel(/password/i).fill(PASSWORD);
      await submit.click();
      await expect.poll(alertText, { timeout: 10_000 }).toMatch(/Too many failed sign-in attempts.*Try again in 15 minutes/);
      expect(page.url()).toMatch(/\/login/);
      await page.screenshot({ path: path.join(ROOT, "docs/screenshots", `login-throttled-${scheme}.png`) });
      await context.close();
    }
  });
  test("locked from many addresses: the owner opens the mailed link in a new browser, confirms, and signs in", async () => {
    // Four addresses, one wrong password each: the fifth sign-in to vic is refused for new browsers.
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url, "x-forwarded-for": `203.0.113.${i + 1}` },
        body: JSON.stringify({ email: "vic@example.com", password: "wrong password!!" }),
      });
      expect(res.status).toBe(401);
    }
    // The owner's new browser, from a new address (through the trusted proxy).
    const context = await browser.newContext({
      viewport: { width: 1100, height: 700 },
      extraHTTPHeaders: { "x-forwarded-for": "192.0.2.99" },
    });
    const page = await context.newPage();
    const alert = page.locator("form [role=alert]");
    const signIn = async () => {
      await page.getByLabel(/email/i).fill("vic@example.com");
      await page.getByLabel(/password/i).fill(PASSWORD);
      await page.getByRole("button", { name: /sign in/i }).click();
    };
    await page.goto(`${server.url}/login`);
    await signIn();
    await expect
      .poll(async () => ((await alert.count()) > 0 ? await alert.innerText() : ""), { timeout: 10_000 })
      .toMatch(/briefly locked.*e-mailed a link that lets another browser sign in/);

    const mail = await eventually(async () => inbox.mailsTo("vic@example.com")[0], 20_000, "the lock notice");
    const link = /(http:\/\/\S+\/known-device\/\S+)/.exec(mail.text ?? "")?.[1] ?? "";
    expect(link).toContain(`${server.url}/known-device/`);

    // The page behind the link, in both schemes and on a phone, before it is used.
    for (const [name, options] of [
      ["known-device-dark", { colorScheme: "dark" as const, viewport: { width: 1100, height: 700 } }],
      ["known-device-phone-light", { colorScheme: "light" as const, viewport: { width: 375, height: 740 } }],
    ] as const) {
      const look = await browser.newContext(options);
      const p = await look.newPage();
      await p.goto(link);
      await p.getByRole("button", { name: "Let this browser sign in" }).waitFor();
      expect(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await p.screenshot({ path: path.join(ROOT, "docs/screenshots", `${name}.png`) });
      await look.close();
    }
    await page.goto(link);
    await page.screenshot({ path: path.join(ROOT, "docs/screenshots", "known-device-light.png") });
    await page.getByRole("button", { name: "Let this browser sign in" }).click();
    await page.waitForURL(/\/login\?device=known/);
    await expect.poll(() => page.getByRole("status").innerText()).toMatch(/This browser may now sign in/);
    await signIn();
    // Signed in: the app, not the login page, while the lock still holds for other new browsers.
    await page.waitForURL((url) => !url.pathname.startsWith("/login"), { timeout: 20_000 });
    await context.close();
  });
});
