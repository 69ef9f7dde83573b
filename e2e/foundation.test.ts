/**
 * The foundation end to end: first-run setup in the browser, the official @sentry/node SDK sending
 * an exception with a cause and breadcrumbs, and the issue page showing it — in real Chromium
 * against the real production build.
 */
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  chromiumAvailable,
  eventually,
  runNodeScript,
  startServer,
  type TestServer,
} from "../test/helpers/server.js";

const canRun = chromiumAvailable();

describe.skipIf(!canRun)("foundation in the browser", () => {
  let server: TestServer;
  let browser: Browser;
  const email = "owner@example.com";
  const password = "a long enough passphrase";

  beforeAll(async () => {
    server = await startServer({ env: { ERRATA_TEST_ROUTES: "true" } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("first visit shows /setup; setup creates the owner and lands on the guided first project; /setup is gone after", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.waitForURL(/\/setup$/);
    await page.getByLabel(/your name/i).fill("Olive Owner");
    await page.getByLabel(/email/i).fill(email);
    await page.getByLabel(/^password/i).fill(password);
    await page.getByLabel(/organization name/i).fill("Acme Inc");
    await page.getByLabel(/slug/i).fill("acme");
    await page.getByRole("button", { name: /create|set up|continue/i }).click();
    await page.waitForURL(/\/acme\/onboarding/);

    const again = await page.goto(`${server.url}/setup`);
    expect(page.url()).not.toMatch(/\/setup$/);
    expect(again?.status()).toBeLessThan(500);
    await page.close();
  });

  test("an exception from @sentry/node (with cause and breadcrumbs) is shown on its issue page", async () => {
    const dsn = await server.cli("project", "create", "--org", "acme", "--name", "backend", "--platform", "node");
    expect(dsn).toMatch(/^http:\/\/[0-9a-f]{32}@127\.0\.0\.1:\d+\/\d+$/);

    const { stdout, file } = await runNodeScript(
      "sentry-node-foundation.mjs",
      `import * as Sentry from "@sentry/node";
Sentry.init({ dsn: ${JSON.stringify(dsn)}, release: "backend@1.2.3", environment: "e2e", defaultIntegrations: false, integrations: [Sentry.linkedErrorsIntegration(), Sentry.contextLinesIntegration()] });
Sentry.addBreadcrumb({ category: "auth", message: "user pressed the checkout button", level: "info" });
function chargeCard() {
  throw new Error("payment gateway exploded", { cause: new TypeError("card.number is undefined") });
}
try { chargeCard(); } catch (err) { console.log(Sentry.captureException(err)); }
await Sentry.flush(10000);
`,
    );
    const eventId = stdout.trim().split("\n").at(-1);
    expect(eventId).toMatch(/^[0-9a-f]{32}$/);

    const page = await browser.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill(email);
    await page.getByLabel(/password/i).fill(password);
    await page.getByRole("button", { name: /sign in|log in/i }).click();
    await page.waitForURL(/\/acme\/issues/);

    // The digest worker is asynchronous: reload until the issue appears in the stream.
    await eventually(
      async () => {
        await page.goto(`${server.url}/acme/issues`);
        return (await page.getByText("payment gateway exploded").count()) > 0;
      },
      30_000,
      "the issue in the stream",
    );
    await page.getByText("payment gateway exploded").first().click();
    await page.waitForURL(/\/acme\/issues\/\d+/);

    const body = page.locator("body");
    await expect.poll(() => body.innerText()).toContain("payment gateway exploded");
    const text = await body.innerText();
    expect(text).toContain("Error");
    expect(text).toContain("TypeError");
    expect(text).toContain("card.number is undefined");
    expect(text).toContain("chargeCard");
    expect(text).toContain(file.split("/").at(-1) as string);
    expect(text).toContain("user pressed the checkout button");
    await page.close();
  });

  test("a thrown error inside Errata shows Errata's own error page with a request id found in the server log", async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${server.url}/debug/throw`);
    expect(res?.status()).toBe(500);
    // The error boundary's page streams in after the response: wait for it, not for a time.
    await expect.poll(() => page.locator("body").innerText(), { timeout: 15_000 }).toMatch(/something went wrong/i);
    const text = await page.locator("body").innerText();
    expect(text).not.toMatch(/Application error: a (client|server)-side exception/i);
    // After an upgrade a tab runs the previous build: the page says reloading may help, and offers it.
    expect(await page.getByTestId("reload-advice").innerText()).toMatch(/reloading the page may help/);
    expect(await page.getByRole("button", { name: "Reload the page" }).count()).toBe(1);
    const requestId = text.match(/\b(\d{6,})\b/)?.[1];
    expect(requestId, text).toBeTruthy();
    await eventually(async () => server.logs().includes(`"digest":"${requestId}"`), 5_000, "the digest in the server log");
    expect(server.logs()).toContain("Deliberate failure from /debug/throw");

    // Next streams metadata, so a notFound() inside a page may keep status 200; what matters is
    // that the product's own page answers.
    await page.goto(`${server.url}/no/such/page/here`);
    const notFound = await page.locator("body").innerText();
    expect(notFound).toMatch(/Not found/);
    expect(notFound).not.toMatch(/Application error/i);
    await page.close();
  });
});
