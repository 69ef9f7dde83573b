/**
 * Issue 5, items 1 and 2, with the real tools: a small app bundled and minified by esbuild (with
 * source maps), debug ids injected and uploaded by the Rust `sentry-cli` 3.8 — or by the JS
 * `sentry` CLI 0.49, which injects itself — then the page runs in Chromium with @sentry/browser
 * and throws. Errata's stored event and issue page show the original file, function, line and
 * source line; the source map itself is never served to the browser.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import * as esbuild from "esbuild";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { tempDir } from "../test/helpers/test-db.js";
import { createTenant, type StoredEvent, sentryCli, sentryJsCli, type Tenant, topFrame } from "../test/sourcemaps/helpers.js";

const canRun = chromiumAvailable();

const CHECKOUT = `export function computeTotal(cart) {
  let total = 0;
  for (const item of cart.items) {
    total += item.price * item.quantity;
  }
  if (total > 100) {
    throw new Error("checkout total exploded via " + window.UPLOADER);
  }
  return total;
}
`;
const MAIN = `import { computeTotal } from "./checkout.js";

function onCheckoutClicked() {
  const cart = { items: [{ price: 60, quantity: 2 }] };
  return computeTotal(cart);
}

window.Sentry.init({ dsn: window.ERRATA_DSN, release: "shop@1.0.0" });
setTimeout(onCheckoutClicked, 50);
`;

/** esbuild: bundle + minify + external source map, as a production build would. */
async function buildApp(): Promise<string> {
  const dir = tempDir("sm-app-");
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "src/checkout.js"), CHECKOUT);
  fs.writeFileSync(path.join(dir, "src/main.js"), MAIN);
  await esbuild.build({
    entryPoints: [path.join(dir, "src/main.js")],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: "iife",
    outfile: path.join(dir, "dist/app.min.js"),
    logLevel: "silent",
  });
  return path.join(dir, "dist");
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

describe.skipIf(!canRun)("source maps from the real uploaders, errors from the real browser SDK", () => {
  let server: TestServer;
  let browser: Browser;
  let t: Tenant;
  let sdkJs: string;
  let page: http.Server;
  let pageBase: string;
  /** what the page server serves as /app.min.js for the current test */
  let appJs = "";
  let uploader = "";
  /** whose DSN the page reports to */
  let pageTenant: Tenant;

  beforeAll(async () => {
    server = await startServer();
    t = await createTenant(server);
    pageTenant = t;
    const sdk = await esbuild.build({
      stdin: { contents: 'import * as Sentry from "@sentry/browser"; window.Sentry = Sentry;', resolveDir: ROOT, loader: "js" },
      bundle: true,
      format: "iife",
      platform: "browser",
      write: false,
      logLevel: "silent",
    });
    sdkJs = sdk.outputFiles[0]?.text ?? "";
    page = http.createServer((req, res) => {
      const send = (type: string, body: string) => {
        res.writeHead(200, { "content-type": type });
        res.end(body);
      };
      if (req.url === "/") {
        send(
          "text/html",
          `<!doctype html><html><head><meta charset="utf-8"><title>shop</title>
<script>window.ERRATA_DSN = ${JSON.stringify(pageTenant.dsn)}; window.UPLOADER = ${JSON.stringify(uploader)};</script>
<script src="/sdk.js"></script><script src="/static/app.min.js"></script></head><body>shop</body></html>`,
        );
      } else if (req.url === "/sdk.js") send("application/javascript", sdkJs);
      else if (req.url === "/static/app.min.js") send("application/javascript", appJs);
      else {
        // Never the map: symbolication happens on the server from the upload.
        res.writeHead(404);
        res.end();
      }
    });
    pageBase = await listen(page);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    page?.closeAllConnections();
    await new Promise<void>((r) => (page ? page.close(() => r()) : r()));
    await server?.stop();
  });

  /** Opens the page, waits for the issue, returns its latest event. */
  async function throwInBrowser(): Promise<{ event: StoredEvent; issueId: string }> {
    const t = pageTenant;
    const tab = await browser.newPage();
    await tab.goto(`${pageBase}/`);
    const auth = { authorization: `Bearer ${t.token}` };
    const issueId = await eventually(
      async () => {
        const res = await fetch(`${server.url}/api/0/projects/${t.org}/${t.project}/issues/?query=${encodeURIComponent(uploader)}`, {
          headers: auth,
        });
        const issues = (await res.json()) as Array<{ id: string; title: string }>;
        return issues.find((i) => i.title.includes(`checkout total exploded via ${uploader}`))?.id;
      },
      30_000,
      "the issue from the browser",
    );
    await tab.close();
    const res = await fetch(`${server.url}/api/0/organizations/${t.org}/issues/${issueId}/events/latest/`, { headers: auth });
    return { event: (await res.json()) as StoredEvent, issueId };
  }

  function expectReadable(event: StoredEvent) {
    const top = topFrame(event);
    expect(top).toMatchObject({
      filename: "src/checkout.js",
      function: "computeTotal",
      lineno: 7,
      context_line: '    throw new Error("checkout total exploded via " + window.UPLOADER);',
      in_app: true,
      data: expect.objectContaining({ sourcemap: expect.stringMatching(/^[0-9a-f-]{36}$/) }),
    });
    expect(top.pre_context).toContain("  if (total > 100) {");
    const frames = event.exception.values[0]?.stacktrace.frames ?? [];
    expect(frames.find((f) => f.filename === "src/main.js")).toMatchObject({ lineno: 5, context_line: "  return computeTotal(cart);" });
    // The minified frames are kept for the raw view.
    const rawTop = event.exception.values[0]?.raw_stacktrace?.frames.at(-1);
    expect(rawTop?.abs_path).toBe(`${pageBase}/static/app.min.js`);
    expect(rawTop?.function).not.toBe("computeTotal");
    expect(event.errata.notes.filter((n) => n.type === "sourcemap")).toEqual([]);
  }

  test("1. esbuild → sentry-cli sourcemaps inject → sentry-cli sourcemaps upload → Chromium", async () => {
    const dist = await buildApp();
    await sentryCli(server, t, "sourcemaps", "inject", dist);
    await sentryCli(server, t, "sourcemaps", "upload", "--url-prefix", "~/static", dist);
    appJs = fs.readFileSync(path.join(dist, "app.min.js"), "utf8");
    expect(appJs).toContain("_sentryDebugIds");
    uploader = "rust-cli";
    const { event, issueId } = await throwInBrowser();
    expect(event.debug_meta).toMatchObject({
      images: [expect.objectContaining({ type: "sourcemap", code_file: `${pageBase}/static/app.min.js` })],
    });
    expectReadable(event);

    // The issue page shows it too (signed in as the owner).
    const tab = await browser.newPage();
    await tab.goto(`${server.url}/login`);
    await tab.getByLabel(/email/i).fill(`dev-${t.org}@example.com`);
    await tab.getByLabel(/password/i).fill("correct horse battery");
    await tab.getByRole("button", { name: /sign in|log in/i }).click();
    await tab.waitForURL(/\/issues/);
    await tab.goto(`${server.url}/${t.org}/issues/${issueId}`);
    const body = tab.locator("body");
    await expect.poll(() => body.innerText()).toContain("src/checkout.js");
    const text = await body.innerText();
    expect(text).toContain("computeTotal");
    expect(text).toContain('throw new Error("checkout total exploded via " + window.UPLOADER);');
    await tab.close();
  });

  test("2. esbuild → the JS sentry CLI (injects itself) → Chromium", async () => {
    // Another organization: the same crash in the same project would join the issue of test 1.
    pageTenant = await createTenant(server, "globex", "shop");
    const dist = await buildApp();
    await sentryJsCli(server, pageTenant, "sourcemap", "upload", dist);
    appJs = fs.readFileSync(path.join(dist, "app.min.js"), "utf8");
    expect(appJs).toContain("sentry-dbid-");
    uploader = "js-cli";
    const { event } = await throwInBrowser();
    expectReadable(event);
  });
});
