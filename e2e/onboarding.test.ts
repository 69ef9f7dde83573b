/**
 * The first run end to end in real Chromium: /setup → the guided first project (name + platform)
 * → its DSN and snippet → an exception from the official @sentry/node SDK in a child process →
 * the page celebrates the first event without a reload and links to its issue.
 */
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, runNodeScript, startServer, type TestServer } from "../test/helpers/server.js";

const canRun = chromiumAvailable();

describe.skipIf(!canRun)("onboarding in the browser", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("setup → first project → the SDK's first event is celebrated live", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/setup`);
    await page.getByLabel(/your name/i).fill("Olive Owner");
    await page.getByLabel(/email/i).fill("olive@example.com");
    await page.getByLabel(/^password/i).fill("a long enough passphrase");
    await page.getByLabel(/organization name/i).fill("Acme Inc");
    await page.getByLabel(/slug/i).fill("acme");
    await page.getByRole("button", { name: /create account/i }).click();
    await page.waitForURL(/\/acme\/onboarding$/);

    await page.getByLabel("Project name").fill("Backend");
    await page.getByText("Node.js", { exact: true }).click();
    await page.getByRole("button", { name: "Create project" }).click();
    await page.waitForURL(/\/acme\/onboarding\?project=backend/);
    await page.getByTestId("waiting").waitFor();
    const dsn = (await page.getByTestId("project-dsn").locator("pre code").innerText()).trim();
    expect(dsn).toMatch(/^http:\/\/[0-9a-f]{32}@127\.0\.0\.1:\d+\/\d+$/);
    expect(await page.getByTestId("sdk-guide").getAttribute("data-guide")).toBe("node");
    expect(await page.getByTestId("sdk-guide").innerText()).toContain(`dsn: "${dsn}"`);

    // A marker on the window survives only if the page is never reloaded: the celebration must
    // arrive by itself. (Same-document history updates are fine; a reload is not.)
    await page.evaluate(() => {
      (window as unknown as { __errataMarker: number }).__errataMarker = 42;
    });
    await runNodeScript(
      "sentry-node-onboarding.mjs",
      `import * as Sentry from "@sentry/node";
Sentry.init({ dsn: ${JSON.stringify(dsn)}, defaultIntegrations: false });
Sentry.captureException(new Error("first light from the onboarding test"));
await Sentry.flush(10000);
`,
    );
    const done = page.getByTestId("first-event");
    await done.waitFor({ timeout: 30_000 });
    expect(await done.innerText()).toContain("first light from the onboarding test");
    expect(await page.evaluate(() => (window as unknown as { __errataMarker?: number }).__errataMarker)).toBe(42);

    // More errors, in a second issue (BACKEND-2, the latest): the page still names the FIRST event's issue (BACKEND-1), not the latest
    const firstShortId = (await done.innerText()).match(/BACKEND-\d+/)?.[0];
    expect(firstShortId).toBe("BACKEND-1");
    await runNodeScript(
      "sentry-node-onboarding-more.mjs",
      `import * as Sentry from "@sentry/node";
Sentry.init({ dsn: ${JSON.stringify(dsn)}, defaultIntegrations: false });
for (const n of ["second", "third", "fourth"]) {
  try { throw new TypeError(n + " failure after onboarding"); } catch (e) { Sentry.captureException(e); }
}
await Sentry.flush(10000);
`,
    );
    await expect
      .poll(async () => (await page.request.get(`${server.url}/acme/issues?project=backend&query=`)).text(), { timeout: 30_000 })
      .toContain("second failure after onboarding");
    await page.reload();
    await done.waitFor();
    expect(await done.innerText()).toContain("first light from the onboarding test");
    expect(await done.innerText()).toContain("BACKEND-1");

    await done.getByRole("link", { name: "Open the issue" }).click();
    await page.waitForURL(/\/acme\/issues\/\d+/);
    await expect.poll(() => page.locator("body").innerText()).toContain("first light from the onboarding test");
    await page.close();
  });
});
