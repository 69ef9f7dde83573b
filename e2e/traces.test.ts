/**
 * The trace of an error on its issue page: the real @sentry/node with tracing and logs on sends an
 * error inside a span; the issue page draws the span waterfall and the logs of that trace, says
 * plainly that performance analytics are not part of Errata, and renders SDK text as text.
 *
 * The trace page (issue 41): a distributed trace across two projects; from the error's issue the
 * whole trace opens, the error sits on its span, the logs of both services are there, and the
 * error's link leads back to its issue. The trace list filters by service and errors and charts
 * Sentry.metrics. Screenshots (light, dark, desktop, phone) with ERRATA_SCREENSHOTS=1.
 */
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendDistributedTrace } from "../test/helpers/sdk-trace.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, ROOT, runNodeScript, startServer, type TestServer } from "../test/helpers/server.js";

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

describe.skipIf(!canRun)("the trace page (Chromium)", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let traceId: string;
  const shots = process.env.ERRATA_SCREENSHOTS === "1";

  beforeAll(async () => {
    server = await startServer();
    await server.cli("user", "create", "--email", "trace@example.com", "--password", PASSWORD, "--org", "acme");
    const web = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript");
    const api = await server.cli("project", "create", "--org", "acme", "--name", "api", "--platform", "node");
    const token = await server.cli("token", "create", "--email", "trace@example.com", "--scopes", "event:read");
    ({ traceId } = await sendDistributedTrace(web, api, async (id) => {
      const res = await fetch(`${server.url}/api/0/organizations/acme/trace-meta/${id}/`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return res.json();
    }));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
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

  test("from the error's issue to its trace: the error on its span, both services' logs, and the link back", async () => {
    await page.goto(`${server.url}/acme/issues?query=card+declined`);
    await page
      .getByRole("link", { name: /card declined/ })
      .first()
      .click();
    await page.waitForURL(/\/acme\/issues\/\d+/);
    const issueUrl = new URL(page.url()).pathname;
    await page.getByTestId("open-trace").click();
    await page.waitForURL(new RegExp(`/acme/traces/${traceId}$`));
    expect(await page.getByTestId("trace-id").innerText()).toBe(traceId);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("GET /checkout");
    // Every span of both services, in tree order; the error marked on the api's transaction.
    const rows = page.getByTestId("waterfall").locator("li");
    expect(await rows.count()).toBe(4);
    const text = await page.getByTestId("waterfall").innerText();
    for (const name of ["GET /checkout", "POST /api/pay", "SELECT * FROM payments WHERE cart = $1"]) expect(text).toContain(name);
    const marked = page.locator("[data-errors]");
    expect(await marked.count()).toBe(1);
    expect(await marked.innerText()).toContain("POST /api/pay");
    expect(await marked.innerText()).toContain("api");
    expect(await marked.getByTestId("span-error-mark").innerText()).toBe("error");
    // The logs of both services, each on its span.
    const logs = await page.getByTestId("trace-logs").innerText();
    for (const body of ["checkout page requested", "payment started", "payment failed: card declined"]) expect(logs).toContain(body);
    expect(
      await page
        .getByTestId("trace-logs")
        .getByText(/^span /)
        .count(),
    ).toBe(3);
    // Sentry.metrics samples of the trace.
    const metrics = await page.getByTestId("trace-metrics").innerText();
    for (const name of ["checkout.attempts", "queue.depth", "payment.latency"]) expect(metrics).toContain(name);
    // A span's attributes.
    await marked.getByRole("link").first().click();
    await page.getByTestId("span-details").waitFor();
    expect(await page.getByTestId("span-details").innerText()).toContain("POST /api/pay");
    if (shots) await screenshots("trace", `/acme/traces/${traceId}`);
    // Back to the issue from the error.
    await page.getByTestId("trace-error-issue").click();
    await page.waitForURL((u) => u.pathname === issueUrl);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toContain("card declined");
  });

  test("the trace list: filters by service and errors, the metrics' chart, and Sentry's explore links", async () => {
    await page.goto(`${server.url}/acme/traces`);
    const list = page.getByTestId("trace-list");
    expect(await list.innerText()).toContain("GET /checkout");
    expect(await list.innerText()).toContain("web, api".split(", ").sort().join(", "));
    await page.getByLabel("Service").selectOption("api");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/service=api/);
    expect(await page.getByTestId("trace-list").innerText()).toContain("POST /api/pay");
    await page.getByLabel("Duration at least (ms)").fill("3600000");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("No traces match").waitFor();
    await page.goto(`${server.url}/acme/traces?hasErrors=1`);
    // One row per trace (its two services' segments are one trace).
    expect(await page.getByTestId("trace-list").locator("tbody tr").count()).toBe(1);
    expect(await page.getByTestId("metric-chart").innerText()).toMatch(/checkout\.attempts|queue\.depth|payment\.latency/);
    await page.getByRole("link", { name: "payment.latency" }).click();
    expect(await page.getByTestId("metric-chart").innerText()).toContain("payment.latency");
    if (shots) await screenshots("traces", "/acme/traces?period=24h&metric=payment.latency");
    // The links Sentry's clients print open the trace page.
    await page.goto(`${server.url}/organizations/acme/explore/traces/trace/${traceId}/`);
    await page.waitForURL(new RegExp(`/acme/traces/${traceId}$`));
  });

  test("the token form offers Sentry's scopes grouped per resource, and the token carries what each level carries", async () => {
    if (shots) await screenshots("token-scopes", "/account", false, "scope-choices");
    await page.goto(`${server.url}/account`);
    const choices = page.getByTestId("scope-choices");
    for (const resource of ["Project", "Team", "Release", "Issue & Event", "Organization", "Member", "Alerts"])
      expect(await choices.getByLabel(resource, { exact: true }).count(), resource).toBe(1);
    await page.locator("#personal-token-name").fill("grafana");
    await choices.getByLabel("Team", { exact: true }).selectOption({ label: "Read" });
    await choices.getByLabel("Alerts", { exact: true }).selectOption({ label: "Read & Write" });
    await choices.getByLabel("Project", { exact: true }).selectOption({ label: "Admin" });
    await page.getByRole("button", { name: "Create token" }).click();
    await page.getByTestId("token-secret").waitFor();
    const row = page.locator('[data-testid="token-row"][data-name="grafana"]');
    await row.waitFor();
    const text = await row.innerText();
    for (const scope of [
      "team:read",
      "alerts:read",
      "alerts:write",
      "project:read",
      "project:write",
      "project:admin",
      "org:read",
      "event:read",
    ])
      expect(text, scope).toContain(scope);
  });

  /** Light and dark, desktop and phone (390 px: nothing widens the page). */
  async function screenshots(name: string, url: string, fullPage = true, scrollTo?: string) {
    for (const [suffix, viewport] of [
      ["", { width: 1280, height: 800 }],
      ["-phone", { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport);
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await page.goto(`${server.url}${url}`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name}${suffix} widens the page`).toBeLessThanOrEqual(
          viewport.width,
        );
        if (scrollTo) await page.getByTestId(scrollTo).evaluate((el) => el.scrollIntoView({ block: "center" }));
        await page.screenshot({
          path: path.join(ROOT, "docs", "screenshots", `${name}${suffix}-${theme}.png`),
          fullPage: fullPage && suffix === "",
        });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
  }
});
