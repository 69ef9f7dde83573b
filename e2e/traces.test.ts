/**
 * The trace of an error on its issue page: the real @sentry/node with tracing and logs on sends an
 * error inside a span; the issue page draws the span waterfall and the logs of that trace, says
 * plainly that performance analytics are not part of Errata, and renders SDK text as text.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, runNodeScript, startServer, type TestServer } from "../test/helpers/server.js";

const canRun = chromiumAvailable();
const PASSWORD = "correct horse battery";

describe.skipIf(!canRun)("trace panel on the issue page (Chromium)", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    server = await startServer();
    await server.cli("user", "create", "--email", "trace@example.com", "--password", PASSWORD, "--org", "acme");
    const dsn = await server.cli("project", "create", "--org", "acme", "--name", "shop", "--platform", "node");
    await runNodeScript(
      "traces-e2e.mjs",
      [
        'import * as Sentry from "@sentry/node";',
        'Sentry.init({ dsn: process.env.DSN, release: "shop@1.0.0", tracesSampleRate: 1, enableLogs: true });',
        'await Sentry.startSpan({ name: "POST /checkout", op: "http.server" }, async () => {',
        '  await Sentry.startSpan({ name: "<img src=x onerror=alert(1)> SELECT carts", op: "db.query" }, async () => {',
        "    await new Promise((r) => setTimeout(r, 5));",
        "  });",
        '  Sentry.logger.warn("payment provider slow <b>bold</b>");',
        '  Sentry.captureException(new Error("trace e2e declined"));',
        "});",
        "await Sentry.flush(10000);",
        "await Sentry.close(10000);",
      ].join("\n"),
      { DSN: dsn },
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage();
    page.on("dialog", () => {
      throw new Error("a dialog opened: SDK text ran as HTML");
    });
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill("trace@example.com");
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("shows the spans as a waterfall and the logs of the error's trace", async () => {
    // The digest runs behind ingest: reload the stream until the issue is there.
    await expect
      .poll(
        async () => {
          await page.goto(`${server.url}/acme/issues`);
          return page.getByRole("link", { name: /trace e2e declined/ }).count();
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThan(0);
    await page
      .getByRole("link", { name: /trace e2e declined/ })
      .first()
      .click();
    const trace = page.locator("#trace");
    await trace.waitFor();
    await expect.poll(() => trace.getByRole("figure", { name: "Spans" }).innerText()).toContain("POST /checkout");
    const spans = await trace.getByRole("figure", { name: "Spans" }).innerText();
    expect(spans).toContain("<img src=x onerror=alert(1)> SELECT carts");
    expect(spans).toContain("db.query");
    expect(await trace.getByRole("list", { name: "Logs" }).innerText()).toContain("payment provider slow <b>bold</b>");
    expect(await trace.innerText()).toContain("performance analytics (throughput, percentiles, dashboards) are not part of Errata");
    expect(await trace.locator("img").count()).toBe(0);
  });
});
