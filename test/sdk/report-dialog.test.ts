/**
 * `Sentry.showReportDialog` from the official @sentry/browser, in Chromium, on a page served from
 * another origin: the SDK loads our dialog script, a user fills the form, the feedback is stored
 * linked to the event, closing calls the SDK's onClose — and hostile dialog options stay text.
 * Skips with a notice when /usr/bin/chromium is missing (a failure under CI=true).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as esbuild from "esbuild";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db";
import { listFeedback } from "../../src/storage/feedback/feedback";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from "../helpers/server";
import { openTestDb } from "../helpers/test-db";
import { type HandlerServer, type SeededProject, seedProject, startHandler, until } from "../ingest/helpers";
import { drain } from "../pipeline/helpers";

const haveChromium = chromiumAvailable();

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe.skipIf(!haveChromium)("crash-report dialog with @sentry/browser in Chromium", () => {
  let db: Db;
  let closeDb: () => Promise<void>;
  let ingest: HandlerServer;
  let p: SeededProject;
  let page: http.Server;
  let pageBase: string;
  let browser: Browser;

  beforeAll(async () => {
    ({ db, close: closeDb } = await openTestDb("sqlite"));
    p = await seedProject(db, "dialog");
    ingest = await startHandler(db);
    const bundle = await esbuild.build({
      stdin: { contents: 'import * as Sentry from "@sentry/browser"; window.Sentry = Sentry;', resolveDir: process.cwd(), loader: "js" },
      bundle: true,
      format: "iife",
      platform: "browser",
      write: false,
      logLevel: "silent",
    });
    const bundleJs = bundle.outputFiles[0]?.text ?? "";
    const dsn = `http://${p.key}@${ingest.base.slice("http://".length)}/${p.projectId}`;
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>shop</title>
<script src="/bundle.js"></script>
<script>
  Sentry.init({ dsn: ${JSON.stringify(dsn)}, release: "shop@1.0.0" });
  window.openDialog = function () {
    var eventId = Sentry.captureException(new Error("checkout failed"));
    Sentry.showReportDialog({
      eventId: eventId,
      user: { name: "Ada <b>Lovelace</b>", email: "ada@example.com" },
      title: "<img src=x onerror=\\"window.__xss = 1\\">Sorry!",
      onLoad: function () { window.__loaded = true; },
      onClose: function () { window.__closed = true; },
    });
    return eventId;
  };
</script></head><body><main>shop</main></body></html>`;
    page = http.createServer((req, res) => {
      if (req.url === "/bundle.js") {
        res.writeHead(200, { "content-type": "application/javascript" });
        res.end(bundleJs);
      } else {
        res.writeHead(200, { "content-type": "text/html" });
        res.end(html);
      }
    });
    pageBase = await listen(page);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    page?.closeAllConnections();
    await new Promise<void>((r) => (page ? page.close(() => r()) : r()));
    await ingest?.close();
    await closeDb?.();
  });

  test("the SDK opens our dialog; the report is stored with the event; onClose fires; options stay text", async () => {
    const ctx = await browser.newContext();
    const tab = await ctx.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (e) => errors.push(e.message));
    await tab.goto(`${pageBase}/`);
    const eventId = (await tab.evaluate(() => (window as unknown as { openDialog(): string }).openDialog())).replace(/-/g, "");
    // Playwright's CSS engine pierces the open shadow root.
    const dialog = tab.locator("#errata-report-dialog [role=dialog]");
    await dialog.waitFor({ timeout: 15_000 });
    expect(await tab.evaluate(() => (window as unknown as { __loaded?: boolean }).__loaded)).toBe(true);
    await expect.poll(() => dialog.locator("h2").textContent()).toBe('<img src=x onerror="window.__xss = 1">Sorry!');
    expect(await dialog.locator("input[name=name]").inputValue()).toBe("Ada <b>Lovelace</b>");
    expect(await dialog.locator("input[name=email]").inputValue()).toBe("ada@example.com");

    // An invalid email is refused by the server and shown, nothing stored.
    await dialog.locator("input[name=email]").fill("not-an-email");
    await dialog.locator("textarea[name=comments]").fill("I clicked pay and it crashed.");
    await dialog.locator("button[type=submit]").click();
    await expect.poll(() => dialog.locator("input[name=email]").getAttribute("aria-invalid")).toBe("true");
    await dialog.locator("input[name=email]").fill("ada@example.com");
    await dialog.locator("button[type=submit]").click();
    await dialog.locator("[role=status]").waitFor({ timeout: 10_000 });
    expect(await dialog.locator("[role=status]").textContent()).toContain("Your feedback has been sent");

    await tab.keyboard.press("Escape");
    await expect.poll(() => tab.evaluate(() => (window as unknown as { __closed?: boolean }).__closed)).toBe(true);
    expect(await tab.locator("#errata-report-dialog").count()).toBe(0);
    expect(await tab.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(errors).toEqual([]);
    await ctx.close();

    await until(async () => {
      await drain(db, Date.now());
      return (await listFeedback(db, { projectIds: [p.projectId] })).length > 0;
    }, "the report to be digested");
    expect(await listFeedback(db, { projectIds: [p.projectId] })).toMatchObject([
      {
        feedbackId: eventId,
        eventId,
        name: "Ada <b>Lovelace</b>",
        email: "ada@example.com",
        comments: "I clicked pay and it crashed.",
        source: "crash_report_dialog",
      },
    ]);
  });
});
