/**
 * The Next.js promise end to end: a real App Router app (test/fixtures/nextjs-app) with the stock
 * @sentry/nextjs 11.0.0, built with `next build` (production) and run with `next start`. Its server
 * component throws; the browser gets Next's redacted error and shows the digest (app/error.tsx);
 * the server event (onRequestError → Sentry.captureRequestError) and the browser event
 * (Sentry.captureException in error.tsx) both reach a real Errata, which links them by digest.
 * The app is built once for the file (~35 s on two cores). Its browser SDK records session replays
 * on error (issue 40): a client-side exception's issue plays the session that ended on Next's error
 * page, and the digest page and the server error play the browser session that hit the digest.
 */
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { postEvent } from "../src/cli/main.js";
import type { IssueAlert } from "../src/core/alerts/message.js";
import { startReceiver } from "../test/alerts/helpers.js";
import { buildAndStartNextApp, type NextApp } from "../test/helpers/nextjs-app.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { expectLinkedRowReadable } from "./helpers/linked-digest-row.js";
import { playerNumber, replayFrame } from "./helpers/replay-player.js";
import { liveStreamSearch } from "./helpers/stream-search.js";

const canRun = chromiumAvailable();
const FIXTURE = path.join(ROOT, "test/fixtures/nextjs-app");
/** `next build` takes ~35 s on two idle cores; a busy machine may set NEXT_BUILD_TIMEOUT_MS. */
const BUILD_MS = Number(process.env.NEXT_BUILD_TIMEOUT_MS) || 170_000;

describe.skipIf(!canRun)("Next.js app with @sentry/nextjs → digest linking", () => {
  let server: TestServer;
  let browser: Browser;
  let app: NextApp | undefined;
  let appUrl: string;
  let dsn: string;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  /** the issue alerts the rule sent to the test's webhook receiver (generic webhook JSON) */
  const alerts = (): IssueAlert[] =>
    hook.received
      .filter((r) => r.path === "/hook")
      .map((r) => (JSON.parse(r.body) as { message: IssueAlert }).message)
      .filter((m) => m.kind === "alert");
  const email = "next-owner@example.com";
  const password = "a long enough passphrase";

  beforeAll(async () => {
    server = await startServer({
      env: {
        ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true",
        ALERTS_POLL_MS: "200",
        // The server error's alert waits for its browser mirror however long this machine takes
        // (it leaves the moment the mirror is in); a skew burst is gathered for 5 s.
        ALERTS_NEXTJS_PAIR_MS: "600000",
        ALERTS_NEXTJS_BURST_MS: "5000",
      },
    });
    await server.cli("user", "create", "--email", email, "--password", password, "--org", "acme");
    dsn = await server.cli("project", "create", "--org", "acme", "--name", "shop", "--platform", "javascript-nextjs");
    expect(dsn).toMatch(/^http:\/\/[0-9a-f]{32}@127\.0\.0\.1:\d+\/\d+$/);
    // A new-issue rule to a webhook receiver of the test's own: what the alerts say.
    hook = await startReceiver();
    await server.cli("alert", "create", "--org", "acme", "--project", "shop", "--trigger", "new-issue", "--webhook", `${hook.url}/hook`);
    // The same as Slack sees it (headline, facts, the advice).
    await server.cli(
      "alert",
      "create",
      "--org",
      "acme",
      "--project",
      "shop",
      "--trigger",
      "new-issue",
      "--kind",
      "slack",
      "--webhook",
      `${hook.url}/slack`,
    );

    app = await buildAndStartNextApp({
      fixture: FIXTURE,
      name: "nextjs-app",
      buildTimeoutMs: BUILD_MS,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        // The browser's DSN is inlined at build time; the server reads its own at start.
        NEXT_PUBLIC_ERRATA_DSN: dsn,
        ERRATA_DSN: dsn,
      },
    });
    appUrl = app.url;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, BUILD_MS + 70_000);

  afterAll(async () => {
    await browser?.close();
    await hook?.close();
    await app?.stop();
    await server?.stop();
  });

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill(email);
    await page.getByLabel(/password/i).fill(password);
    await page.getByRole("button", { name: /sign in|log in/i }).click();
    await page.waitForURL(/\/acme\/issues/);
  }

  test("the server component's error: digest in the browser, both events in Errata, linked; a pasted digest opens the server error", async () => {
    // 1. The visitor: Next's production error page with the digest (from app/error.tsx).
    const visitor = await browser.newPage();
    const res = await visitor.goto(`${appUrl}/boom`);
    expect(res?.status()).toBe(500);
    const digest = (await visitor.getByTestId("digest").innerText()).trim();
    expect(digest, app?.logs()).toMatch(/^\d{6,12}$/);
    // The message never reaches the browser; the server log has it with the same digest.
    expect(await visitor.locator("body").innerText()).not.toContain("Invoice service refused");
    expect(app?.logs()).toContain(`digest: '${digest}'`);
    // The page a visitor sees after a deploy says what may help.
    expect(await visitor.getByTestId("reload-advice").innerText()).toContain("reloading it may help");

    // 2. The engineer: the digest page lists the server event and the browser event.
    const page = await browser.newPage();
    await signIn(page);
    await eventually(
      async () => {
        await page.goto(`${server.url}/acme/digest/${digest}`);
        const summary = await page.getByTestId("digest-summary").innerText({ timeout: 1000 });
        return /^[1-9]\d* server · [1-9]\d* browser/.test(summary);
      },
      45_000,
      "the server and the browser event on the digest page",
    );
    // The visitor's tab stays open until its session's replay is in (step 5b): the SDK sends it
    // right after the error event, from the page.
    const rows = page.locator("tbody tr");
    // Server first.
    expect(await rows.first().getAttribute("data-side")).toBe("server");
    expect(await rows.first().innerText()).toContain("Invoice service refused the request (server component)");
    const browserRow = page.locator('tbody tr[data-side="client"]').first();
    expect(await browserRow.innerText()).toContain(`An error occurred in the Server Components render (digest ${digest})`);

    // 3. The server issue shows the linked browser event, and vice versa.
    await rows.first().getByRole("link").first().click();
    await page.waitForURL(/\/acme\/issues\/\d+$/);
    const serverIssueUrl = page.url();
    await expect.poll(() => page.locator("h1").first().innerText()).toContain("Invoice service refused the request");
    expect(await page.getByTestId("issue-digest").innerText()).toBe(digest);
    const linked = page.getByTestId("linked-digest-events");
    expect(await linked.innerText()).toContain(`An error occurred in the Server Components render (digest ${digest})`);
    expect(await linked.locator('[data-side="client"]').count()).toBeGreaterThan(0);
    await expectLinkedRowReadable(page, "server");
    await linked.getByRole("link", { name: /Server Components render/ }).click();
    await page.waitForURL((url) => url.href !== serverIssueUrl && /\/acme\/issues\/\d+$/.test(url.pathname));
    expect(await page.getByTestId("linked-digest-events").innerText()).toContain("Invoice service refused the request (server component)");
    await expectLinkedRowReadable(page, "browser");
    // The short id links to the other side too.
    await page.getByTestId("linked-short-id").first().click();
    await page.waitForURL(serverIssueUrl);

    // 4. Pasting the digest into the stream's search box opens the server error.
    await page.goto(`${server.url}/acme/issues`);
    const search = await liveStreamSearch(page);
    await search.fill(digest);
    await search.press("Enter");
    await page.waitForURL(serverIssueUrl);
    expect(await page.locator("h1").first().innerText()).toContain("Invoice service refused the request");

    // 5. digest:N as a search term lists both issues.
    await page.goto(`${server.url}/acme/issues?query=${encodeURIComponent(`digest:${digest}`)}`);
    const stream = await page.locator("main").innerText();
    expect(stream).toContain("Invoice service refused the request");
    expect(stream).toContain(`Server Components render (digest ${digest})`);

    // 5b. Beyond Sentry (issue 40): the digest page and the server error play the browser session
    // that hit the digest (the browser event's replay, sent by the SDK's replaysOnErrorSampleRate).
    await eventually(
      async () => {
        await page.goto(`${server.url}/acme/digest/${digest}`);
        return (await page.locator("[data-testid=event-replay] [data-testid=replay-player]").count()) > 0;
      },
      45_000,
      "the browser session's replay on the digest page",
    );
    expect(await page.getByTestId("event-replay").innerText()).toMatch(/the browser session that hit this digest/i);
    await page.goto(serverIssueUrl);
    expect(await page.getByTestId("event-replay").innerText()).toMatch(/session replay of the browser that hit this digest/i);
    await visitor.close();
    await page.close();

    // 6. ONE notification for the pair: the server error's, naming the browser issue and the digest.
    const paired = await eventually(
      async () => alerts().find((m) => m.nextjs?.digest?.key === digest),
      60_000,
      "the alert about the digest",
    );
    const d = paired.nextjs?.digest;
    expect(d?.side).toBe("server");
    expect(paired.issue.title).toContain("Invoice service refused the request (server component)");
    expect(d?.browser?.title).toContain(`Server Components render (digest ${digest})`);
    expect(d?.path).toBe(`/acme/digest/${digest}`);
    expect(paired.path).toBe(`/acme/digest/${digest}`);
    // A sentinel sent after both sides: once its alert is in, anything else about the digest
    // (due earlier) would have been delivered before it.
    await postEvent(dsn, {
      event_id: "ef".repeat(16),
      platform: "javascript",
      level: "error",
      exception: { values: [{ type: "Error", value: "sentinel after the digest pair" }] },
    });
    await eventually(async () => alerts().some((m) => m.issue.title.includes("sentinel after the digest pair")), 30_000, "the sentinel");
    expect(alerts().filter((m) => m.nextjs?.digest?.key === digest)).toHaveLength(1);
    expect(hook.received.filter((r) => r.path === "/slack" && r.body.includes(digest))).toHaveLength(1);
  });

  test("a client-side exception's issue plays the session that ended on Next's error page", async () => {
    const visitor = await browser.newPage();
    await visitor.goto(`${appUrl}/client-boom`);
    await visitor.locator("#checkout").click();
    await visitor.getByTestId("digest").waitFor();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await signIn(page);
    // The error event and then its replay (flushed by the SDK right after the error) reach Errata.
    const scope = "[data-testid=event-replay]";
    await eventually(
      async () => {
        await page.goto(`${server.url}/acme/issues?query=${encodeURIComponent("Cart total went negative")}`);
        const link = page.getByRole("link", { name: /Cart total went negative/ }).first();
        if ((await link.count()) === 0) return false;
        await link.click();
        await page.waitForURL(/\/acme\/issues\/\d+/);
        return (await page.locator(`${scope} [data-testid=replay-player]`).count()) > 0;
      },
      45_000,
      "the client-side exception's issue with its replay",
    );
    await visitor.close();
    const player = page.locator(`${scope} [data-testid=replay-player]`);
    await expect.poll(() => player.getAttribute("data-complete"), { timeout: 30_000 }).toBe("true");
    // Opened before the error: the cart with its button, as the user saw it.
    const frame = await replayFrame(page, scope);
    await expect.poll(() => frame.locator("#checkout").count()).toBe(1);
    // At its end the session is on Next's error page (app/error.tsx with the digest slot).
    await player.focus();
    await page.keyboard.press("End");
    await expect
      .poll(async () => (await playerNumber(page, scope, "data-current")) >= (await playerNumber(page, scope, "data-total")) - 100)
      .toBe(true);
    await expect.poll(async () => (await replayFrame(page, scope)).locator("[data-testid=digest]").count()).toBe(1);
    expect(await (await replayFrame(page, scope)).locator("#checkout").count()).toBe(0);
    await page.close();
  });

  test("a deploy-skew burst after a release: one skew message with the release, the count and the advice", async () => {
    const release = `shop@${Date.now()}`;
    for (const [i, user] of ["tab-1", "tab-2", "tab-3"].entries()) {
      const chunk = 300 + i;
      await postEvent(dsn, {
        event_id: `${"ab".repeat(15)}${String(10 + i)}`,
        platform: "javascript",
        sdk: { name: "sentry.javascript.nextjs", version: "11.0.0" },
        level: "error",
        release,
        user: { id: user },
        exception: {
          values: [
            i === 1
              ? { type: "TypeError", value: `Failed to fetch dynamically imported module: ${appUrl}/_next/static/chunks/${chunk}.js` }
              : { type: "ChunkLoadError", value: `Loading chunk ${chunk} failed.\n(error: ${appUrl}/_next/static/chunks/${chunk}.js)` },
          ],
        },
      });
    }
    // A plain error after the burst: once its alert is in, every skew event before it was digested.
    await postEvent(dsn, {
      event_id: "cd".repeat(16),
      platform: "javascript",
      level: "error",
      release,
      exception: { values: [{ type: "Error", value: "sentinel after the skew burst" }] },
    });
    await eventually(
      async () => alerts().some((m) => m.issue.title.includes("sentinel after the skew burst")),
      30_000,
      "the sentinel's alert",
    );
    // The skew message waited for its burst (ALERTS_NEXTJS_BURST_MS): one, with the burst's count.
    const skew = await eventually(
      async () => {
        const found = alerts().filter((m) => m.nextjs?.skew);
        return found.length > 0 ? found : undefined;
      },
      30_000,
      "the skew message",
    );
    expect(skew).toHaveLength(1);
    expect(skew[0]?.nextjs?.skew).toMatchObject({ release, users: 3, events: 3 });
    const slack = await eventually(
      async () => {
        const found = hook.received.filter((r) => r.path === "/slack" && r.body.includes("Deploy skew after release"));
        return found.length > 0 ? found : undefined;
      },
      30_000,
      "Slack's skew message",
    );
    expect(slack).toHaveLength(1);
    expect(JSON.parse(slack[0]?.body ?? "{}").text).toBe(
      `Deploy skew after release ${release} in shop: 3 users hit stale chunks in 1 minute`,
    );
    expect(slack[0]?.body).toContain("deploymentId");
    expect(slack[0]?.body).toContain("skew protection");
  });
});
