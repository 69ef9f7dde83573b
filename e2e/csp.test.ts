/**
 * The Content-Security-Policy in real Chromium: every screen still works (sign-in through the
 * hydrated form, the stream, an issue, settings, releases, a 404) with no CSP violation and no
 * script error, and a page on another origin cannot frame Errata.
 */
import http from "node:http";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, freePort, startServer, type TestServer } from "../test/helpers/server.js";

const canRun = chromiumAvailable();
const PASSWORD = "correct horse battery";

/** Collects CSP violations (the DOM event and the console report) and uncaught errors of a page. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    const text = msg.text();
    if (/Content Security Policy|Refused to (execute|load|apply)|hydrat/i.test(text)) problems.push(`console: ${text}`);
  });
  return problems;
}

describe.skipIf(!canRun)("CSP in the browser", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    await server.cli("user", "create", "--email", "ann@example.com", "--password", PASSWORD, "--org", "acme");
    const dsn = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript");
    await server.cli("send-test-event", "--dsn", dsn, "--message", "csp check");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("every screen renders and runs its scripts with no CSP violation", async () => {
    const context = await browser.newContext();
    await context.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) => {
        console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`);
      });
    });
    const page = await context.newPage();
    const problems = watch(page);
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill("ann@example.com");
    await page.getByLabel(/password/i).fill(PASSWORD);
    // The form submits through fetch: this only lands on the stream when React hydrated.
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL(/\/acme\/issues/);
    await eventually(
      async () => {
        await page.reload();
        return (await page.getByText("csp check").count()) > 0;
      },
      30_000,
      "the test issue in the stream",
    );
    await page.getByText("csp check").first().click();
    await page.waitForURL(/\/acme\/issues\/\d+/);
    for (const path of [
      "/acme/projects",
      "/acme/projects/new",
      "/acme/projects/web/settings",
      "/acme/projects/web/settings/keys",
      "/acme/projects/web/settings/scrubbing",
      "/acme/projects/web/settings/setup",
      "/acme/projects/web/settings/usage",
      "/acme/releases",
      "/acme/feedback",
      "/acme/onboarding",
      "/no/such/page/here",
      "/acme/issues",
    ]) {
      await page.goto(`${server.url}${path}`);
      await page.waitForLoadState("networkidle");
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  test("a page on another origin cannot frame Errata", async () => {
    const port = await freePort();
    const framer = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><iframe id="f" src="${server.url}/login"></iframe>`);
    });
    await new Promise<void>((resolve) => framer.listen(port, "127.0.0.1", () => resolve()));
    try {
      const page = await browser.newPage();
      const messages: string[] = [];
      page.on("console", (m) => messages.push(m.text()));
      await page.goto(`http://127.0.0.1:${port}/`);
      await eventually(async () => messages.some((m) => /frame-ancestors/.test(m)), 10_000, "the frame-ancestors refusal");
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(
        await frame
          ?.locator("form")
          .count()
          .catch(() => 0),
      ).toBe(0);
      await page.close();
    } finally {
      framer.close();
    }
  });
});
