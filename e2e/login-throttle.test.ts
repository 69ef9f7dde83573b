/**
 * The login page under throttling, in Chromium: wrong passwords say so, and past the limit the
 * page shows the server's catalogued `sign_in_throttled` message with the wait — even for the right
 * password. Screenshots of that state in light and dark (docs/screenshots/login-throttled-*.png).
 */
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, ROOT, startServer, type TestServer } from "../test/helpers/server.js";

const canRun = chromiumAvailable();
const PASSWORD = "correct horse battery";

describe.skipIf(!canRun)("login throttling in the browser", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ env: { LOGIN_MAX_ATTEMPTS: "2", LOGIN_MAX_ATTEMPTS_PER_ADDRESS: "2" } });
    await server.cli("user", "create", "--email", "ann@example.com", "--password", PASSWORD, "--org", "acme");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
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
});
