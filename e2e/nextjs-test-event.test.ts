/**
 * `errata send-test-event --nextjs` against a real Errata (no Next app to build): the pair lands on
 * the digest page (server first), each issue page shows the other side in "Linked digest events"
 * readable at 1920, 1280 and 390 px, and one alert (the server error's) to the test's webhook receiver names both sides.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { IssueAlert } from "../src/core/alerts/message.js";
import { startReceiver } from "../test/alerts/helpers.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, startServer, type TestServer } from "../test/helpers/server.js";
import { expectLinkedRowReadable } from "./helpers/linked-digest-row.js";

describe.skipIf(!chromiumAvailable())("send-test-event --nextjs", () => {
  let server: TestServer;
  let browser: Browser;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let dsn: string;
  const email = "pair-owner@example.com";
  const password = "a long enough passphrase";

  beforeAll(async () => {
    server = await startServer({ env: { ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true", ALERTS_POLL_MS: "200" } });
    await server.cli("user", "create", "--email", email, "--password", password, "--org", "acme");
    dsn = await server.cli("project", "create", "--org", "acme", "--name", "shop", "--platform", "javascript-nextjs");
    hook = await startReceiver();
    await server.cli("alert", "create", "--org", "acme", "--project", "shop", "--trigger", "new-issue", "--webhook", `${hook.url}/hook`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await hook?.close();
    await server?.stop();
  });

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill(email);
    await page.getByLabel(/password/i).fill(password);
    await page.getByRole("button", { name: /sign in|log in/i }).click();
    await page.waitForURL(/\/acme\/issues/);
  }

  test("the pair: digest page, readable linked rows on both issues, one alert naming both sides", async () => {
    const out = await server.cli(
      "send-test-event",
      "--dsn",
      dsn,
      "--nextjs",
      "--message",
      "Checkout total could not be computed because the pricing service answered 503 Service Unavailable",
    );
    const digest = /with digest (\d+)/.exec(out)?.[1] ?? "";
    expect(digest, out).toMatch(/^\d{9,10}$/);

    const page = await browser.newPage();
    await signIn(page);
    await eventually(
      async () => {
        await page.goto(`${server.url}/acme/digest/${digest}`);
        return /^1 server · 1 browser/.test(await page.getByTestId("digest-summary").innerText({ timeout: 1000 }));
      },
      30_000,
      "the pair on the digest page",
    );
    expect(await page.locator("tbody tr").first().getAttribute("data-side")).toBe("server");

    // The server issue: its browser side, readable; then the browser issue: its server side.
    await page.locator("tbody tr").first().getByRole("link").first().click();
    await page.waitForURL(/\/acme\/issues\/\d+$/);
    const serverIssueUrl = page.url();
    await expectLinkedRowReadable(page, "server");
    await page.getByTestId("linked-title").first().click();
    await page.waitForURL((u) => u.href !== serverIssueUrl && /\/acme\/issues\/\d+$/.test(u.pathname));
    expect(await page.getByTestId("linked-title").first().innerText()).toContain("Checkout total could not be computed");
    await expectLinkedRowReadable(page, "browser");
    // The short id opens the other side too.
    await page.getByTestId("linked-short-id").first().click();
    await page.waitForURL(serverIssueUrl);
    await page.close();

    // ONE alert for the pair: the server error's, naming its browser half and the digest page.
    const alerts = () => hook.received.map((r) => (JSON.parse(r.body) as { message: IssueAlert }).message);
    const paired = await eventually(async () => alerts().find((m) => m.nextjs?.digest?.browser), 30_000, "the paired alert");
    expect(paired.nextjs?.digest).toMatchObject({ value: digest, side: "server", path: `/acme/digest/${digest}` });
    expect(paired.issue.title).toContain("Checkout total could not be computed");
    expect(paired.path).toBe(`/acme/digest/${digest}`);
    expect(alerts().filter((m) => m.nextjs?.digest?.value === digest)).toHaveLength(1);
  });
});
