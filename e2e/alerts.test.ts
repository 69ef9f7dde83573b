/**
 * Alerts in real Chromium against the real build: an admin adds a Slack-style webhook pointing at
 * the test's receiver, presses "Send a test" and sees the remote's answer, creates a rule, and a
 * real @sentry/node error then arrives at the receiver; the delivery log shows both. Screenshots
 * of the page light and dark go to docs/screenshots/ when ERRATA_SCREENSHOTS=1.
 */
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startReceiver } from "../test/alerts/helpers.js";
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  chromiumAvailable,
  eventually,
  ROOT,
  runNodeScript,
  startServer,
  type TestServer,
} from "../test/helpers/server.js";

const canRun = chromiumAvailable();
const PASSWORD = "correct horse battery";

describe.skipIf(!canRun)("alerts in the browser", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    rx = await startReceiver();
    server = await startServer({ env: { ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true", ALERTS_POLL_MS: "200" } });
    await server.cli("user", "create", "--email", "owner@example.com", "--password", PASSWORD, "--org", "acme");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill("owner@example.com");
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rx?.close();
  });

  test("webhook channel, send a test, a rule, and a real @sentry/node error at the receiver", async () => {
    const dsn = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "node");
    await page.goto(`${server.url}/acme/projects/web/settings/alerts`);
    // the default rule is there
    await expect.poll(() => page.getByTestId("rule-row").count()).toBe(1);

    const form = page.getByTestId("new-channel");
    await form.getByLabel("Kind").selectOption("slack");
    await form.getByLabel("Name").fill("#ops");
    await form.getByLabel("Webhook URL").fill(`${rx.url}/slack`);
    await form.getByRole("button", { name: "Add channel" }).click();
    const row = page.locator('[data-testid="channel-row"][data-channel-name="#ops"]');
    await row.waitFor();
    await row.getByRole("button", { name: "Send a test to #ops" }).click();
    await expect.poll(() => row.innerText(), { timeout: 20_000 }).toContain("Remote answered: HTTP 200 — ok");
    expect(JSON.parse(rx.received[0]?.body ?? "{}").text).toContain("Test message from Errata");

    const rule = page.getByTestId("new-rule");
    await rule.getByLabel("Name").fill("Everything to #ops");
    await rule.getByLabel("#ops").check();
    await rule.getByRole("button", { name: "Create rule" }).click();
    await page.locator('[data-testid="rule-row"][data-rule-name="Everything to #ops"]').waitFor();

    await runNodeScript(
      "sentry-node-alerts.mjs",
      `import * as Sentry from "@sentry/node";
Sentry.init({ dsn: ${JSON.stringify(dsn.split("\n").pop())}, release: "api@2.0.0", environment: "production", defaultIntegrations: false });
function charge() { throw new TypeError("card.number is undefined"); }
try { charge(); } catch (err) { Sentry.captureException(err); }
await Sentry.flush(10000);
`,
    );
    const alert = await eventually(
      async () => rx.received.map((r) => JSON.parse(r.body)).find((b) => String(b.text).includes("card.number is undefined")),
      30_000,
      "the alert at the receiver",
    );
    expect(alert.text).toContain("New issue in web: TypeError: card.number is undefined");
    expect(JSON.stringify(alert.blocks)).toContain("api@2.0.0");

    await page.reload();
    await expect
      .poll(() => page.locator('[data-testid="delivery-row"][data-status="sent"]').count(), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(2);
    expect(await page.getByRole("table", { name: "Delivery log" }).innerText()).toContain("card.number is undefined");

    if (process.env.ERRATA_SCREENSHOTS === "1") {
      // Viewport shots (the top bar is sticky): the rules and channels, then the delivery log.
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: path.join(ROOT, "docs", "screenshots", `alerts-rules-${theme}.png`) });
        await page.getByRole("heading", { name: "New rule" }).evaluate((el) => el.scrollIntoView({ block: "start" }));
        await page.evaluate(() => window.scrollBy(0, -60));
        await page.screenshot({ path: path.join(ROOT, "docs", "screenshots", `alerts-editor-${theme}.png`) });
        await page.getByRole("heading", { name: "Delivery log" }).evaluate((el) => el.scrollIntoView({ block: "start" }));
        await page.evaluate(() => window.scrollBy(0, -60));
        await page.screenshot({ path: path.join(ROOT, "docs", "screenshots", `alerts-log-${theme}.png`) });
      }
    }
  });
});
