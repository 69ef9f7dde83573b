/**
 * Session replay end to end (issue 40): the unmodified @sentry/browser 11 with its Replay
 * integration, bundled into a static page served from another origin, records a real session in
 * Chromium — a form typed into, a fetch, a console line, a navigation, a scripted rage click, then an
 * error — and sends it to the built Errata. Then an engineer, signed in: the issue shows the
 * replay; its player opens a few seconds before the error and shows the DOM the user saw (the
 * SDK's masking intact); the breadcrumb timeline jumps; the replay page lists the error; dead and
 * rage clicks are counted. Two browser runs keep CI short and cover every assertion on both
 * databases and both SDK modes: buffer mode (replaysOnErrorSampleRate) on SQLite, session mode
 * (replaysSessionSampleRate) on PostgreSQL. The Next.js app's case is in nextjs-digest.test.ts.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as esbuild from "esbuild";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { postgresAvailable } from "../test/helpers/test-db.js";
import { playerNumber, replayFrame } from "./helpers/replay-player.js";

const canRun = chromiumAvailable();
const PASSWORD = "correct horse battery";
const CARD = "4242 4242 4242 4242";
const RUNS: Array<{ mode: "buffer" | "session"; dialect: "sqlite" | "postgres" }> = [
  { mode: "buffer", dialect: "sqlite" },
  { mode: "session", dialect: "postgres" },
];

function pageHtml(dsn: string, mode: "buffer" | "session"): string {
  const sampling = mode === "buffer" ? "replaysSessionSampleRate: 0, replaysOnErrorSampleRate: 1" : "replaysSessionSampleRate: 1";
  return `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<script src="/bundle.js"></script>
<script>
  window.__slowClickSeen = false;
  Sentry.init({
    dsn: ${JSON.stringify(dsn)},
    release: "shop@3.1.0",
    environment: "e2e",
    ${sampling},
    integrations: [
      Sentry.replayIntegration({
        networkDetailAllowUrls: [window.location.origin],
        // Only watches (a public SDK option): tells the test when the SDK has judged the rage click.
        beforeAddRecordingEvent: function (e) {
          var p = e && e.data && e.data.payload;
          if (p && p.category === "ui.slowClickDetected") window.__slowClickSeen = true;
          return e;
        },
      }),
    ],
  });
  Sentry.setUser({ id: "buyer-7", email: "buyer@example.com" });
</script></head>
<body>
  <h1 id="title">Checkout page</h1>
  <form id="checkout" onsubmit="return false">
    <label>Card number <input id="card" name="card" autocomplete="off"></label>
    <button id="pay" type="button">Pay now</button>
  </form>
  <p id="status">Waiting for payment</p>
  <button id="dead" type="button">Apply coupon</button>
  <a id="next" href="/step2">Delivery details</a>
  <button id="boom" type="button">Confirm order</button>
  <img id="promo" src="/missing.png" alt="" onerror="this.setAttribute('data-broken', '1')">
  <script>
    document.getElementById("pay").addEventListener("click", function () {
      fetch("/api/pay", { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk_live_secret" }, body: JSON.stringify({ password: "hunter2", item: "book" }) })
        .then(function (r) { return r.json(); })
        .then(function () { document.getElementById("status").textContent = "Payment accepted"; });
    });
    document.getElementById("next").addEventListener("click", function (e) {
      e.preventDefault();
      history.pushState({}, "", "/step2");
      var h = document.createElement("h2");
      h.id = "step2-heading";
      h.textContent = "Delivery details";
      document.body.appendChild(h);
      // Logged once the heading is on the page (the recorder sees DOM changes a tick later). The
      // second line is HTML as text: the timeline must show it as text, never run it.
      setTimeout(function () {
        console.log("checkout moved to delivery");
        console.warn("<img src=x onerror=alert('xss-from-replay')>");
      }, 100);
    });
    document.getElementById("boom").addEventListener("click", function () {
      // The page reacts (a DOM change), so this click is not a dead one.
      document.getElementById("status").textContent = "Confirming order";
      throw new Error("replay e2e boom: order total is negative");
    });
  </script>
</body></html>`;
}

async function servePage(dsn: string, mode: "buffer" | "session"): Promise<{ url: string; close(): Promise<void> }> {
  const bundle = await esbuild.build({
    stdin: { contents: 'import * as Sentry from "@sentry/browser"; window.Sentry = Sentry;', resolveDir: ROOT, loader: "js" },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  const js = bundle.outputFiles[0]?.text ?? "";
  const html = pageHtml(dsn, mode);
  const server = http.createServer((req, res) => {
    if (req.url === "/bundle.js") {
      res.writeHead(200, { "content-type": "application/javascript" });
      res.end(js);
    } else if (req.url === "/api/pay") {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: true, receipt: "R-1" }));
      });
    } else {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The user's session: typing, paying, a console line, a navigation, a rage click judged by the SDK, then the error. */
async function recordSession(browser: Browser, url: string): Promise<void> {
  const user = await browser.newPage();
  await user.goto(url);
  await user.waitForFunction(() => typeof (window as unknown as { Sentry?: unknown }).Sentry === "object");
  await user.locator("#card").pressSequentially(CARD, { delay: 5 });
  await user.locator("#pay").click();
  await user.waitForFunction(() => document.getElementById("status")?.textContent === "Payment accepted");
  await user.locator("#next").click();
  await user.waitForFunction(() => location.pathname === "/step2");
  await user.waitForFunction(() => document.getElementById("step2-heading") !== null);
  // Five clicks on a button that never reacts: after 7 s without a DOM change the SDK calls it a
  // slow click with five clicks, which Sentry counts as dead and rage. Nothing may change the DOM meanwhile.
  for (let i = 0; i < 5; i++) await user.locator("#dead").click({ delay: 10 });
  await user.waitForFunction(() => (window as unknown as { __slowClickSeen: boolean }).__slowClickSeen, undefined, { timeout: 30_000 });
  await user.locator("#boom").click();
  // Leave the page open: session mode sends the segment holding the error within ~5 s; the test
  // waits for Errata to have it rather than for time.
  (browser as unknown as { userPage?: Page }).userPage = user;
}

async function signIn(browser: Browser, server: TestServer, email: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // Recorded content is data: a dialog would mean the recording or its timeline ran as script.
  page.on("dialog", (d) => {
    void d.dismiss();
    throw new Error(`a dialog opened on Errata's page: ${d.message()}`);
  });
  await page.goto(`${server.url}/login`);
  await page.getByLabel(/email/i).fill(email);
  await page.getByLabel(/password/i).fill(PASSWORD);
  await page.getByRole("button", { name: /sign in/i }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/login"));
  return page;
}

const num = playerNumber;

for (const run of RUNS) {
  const skipPg = run.dialect === "postgres" && !(await postgresAvailable());
  describe.skipIf(!canRun || skipPg)(`session replay in Chromium: ${run.mode} mode on ${run.dialect}`, () => {
    let server: TestServer;
    let browser: Browser;
    let site: { url: string; close(): Promise<void> };
    let token: string;
    let replayId: string;
    const email = `replay-${run.mode}@example.com`;
    const api = async (path: string) =>
      (await fetch(`${server.url}/api/0${path}`, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<
        // biome-ignore lint/suspicious/noExplicitAny: Sentry's response shapes, checked by the assertions
        any
      >;

    beforeAll(async () => {
      server = await startServer({ dialect: run.dialect });
      await server.cli("user", "create", "--email", email, "--password", PASSWORD, "--org", "acme");
      const dsn = await server.cli("project", "create", "--org", "acme", "--name", "shop", "--platform", "javascript");
      token = await server.cli("token", "create", "--email", email, "--scopes", "org:read,project:read,event:read");
      site = await servePage(dsn, run.mode);
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      await recordSession(browser, site.url);
      // Errata has the replay once it holds the error and the judged rage click.
      replayId = await eventually(
        async () => {
          const list = await api("/organizations/acme/replays/?statsPeriod=1h&query=count_errors:>0");
          const r = list.data?.[0];
          return r && r.count_rage_clicks >= 1 ? (r.id as string) : undefined;
        },
        60_000,
        "the replay with its error and rage click",
      );
    }, 180_000);
    afterAll(async () => {
      await browser?.close();
      await site?.close();
      await server?.stop();
    });

    test("the replay is stored as the SDK sent it: its mode, error, clicks, URLs, user; the fetch's secrets scrubbed", async () => {
      const { data: r } = await api(`/organizations/acme/replays/${replayId}/`);
      expect(r).toMatchObject({
        replay_type: run.mode,
        count_errors: 1,
        count_dead_clicks: 1,
        count_rage_clicks: 1,
        user: { id: "buyer-7", email: "buyer@example.com" },
        releases: ["shop@3.1.0"],
        environment: "e2e",
        browser: { name: expect.stringMatching(/^Chrome/) },
      });
      expect(r.urls).toEqual(expect.arrayContaining([`${site.url}/`]));
      const segments = JSON.stringify(await api(`/projects/acme/shop/replays/${replayId}/recording-segments/?download`));
      // The request body was captured (networkDetailAllowUrls) and scrubbed before storage; the
      // typed card number never left the browser (the SDK masks inputs).
      expect(segments).toMatch(/\\?"item\\?":\\?"book\\?"/);
      expect(segments).not.toContain("hunter2");
      expect(segments).not.toContain("sk_live_secret");
      expect(segments).not.toContain(CARD);
      expect(segments).not.toContain("Checkout page");
    });

    test("the issue shows the replay; the player opens before the error on the masked DOM; the timeline jumps", async () => {
      const page = await signIn(browser, server, email);
      const issues = await api("/organizations/acme/issues/?query=replay%20e2e%20boom");
      const issueId = issues[0]?.id as string;
      expect(issueId).toBeDefined();
      await page.goto(`${server.url}/acme/issues/${issueId}`);
      const scope = "[data-testid=event-replay]";
      // The side column lists the issue's session replays.
      expect(await page.getByTestId("issue-replays").innerText()).toContain("buyer@example.com");
      const player = page.locator(`${scope} [data-testid=replay-player]`);
      await expect.poll(() => player.getAttribute("data-status"), { timeout: 30_000 }).toBe("paused");
      await expect.poll(() => player.getAttribute("data-complete"), { timeout: 30_000 }).toBe("true");
      const start = await num(page, scope, "data-start");
      const errorCrumb = page.locator(`${scope} [data-testid=replay-crumb][data-kind=error]`).first();
      const errorAt = Number(await errorCrumb.getAttribute("data-at"));
      const opened = await num(page, scope, "data-current");
      // Opened 5 s before the error (or at the start of a replay younger than that).
      expect(opened).toBeLessThan(errorAt - start);
      expect(opened).toBeGreaterThanOrEqual(Math.max(0, errorAt - start - 5000) - 200);

      // The DOM the user saw, masked as the SDK masked it: asterisks for text, never the card number.
      const frame = await replayFrame(page, scope);
      await expect.poll(() => frame.locator("#title").textContent()).toMatch(/^\*+ \*+$/);
      expect(await frame.locator("body").innerHTML()).not.toContain("Checkout page");
      expect(await frame.locator("#card").inputValue()).not.toContain("4242");

      // Jumping: the moment the page logged its move to delivery shows the heading it had just
      // added; the pay click's moment, before it, does not.
      const moved = page
        .locator(`${scope} [data-testid=replay-crumb][data-kind=console]`)
        .filter({ hasText: "checkout moved to delivery" });
      const movedAt = Number(await moved.getAttribute("data-at"));
      await moved.click();
      await expect.poll(() => num(page, scope, "data-current")).toBeGreaterThanOrEqual(movedAt - start - 100);
      expect(await num(page, scope, "data-current")).toBeLessThanOrEqual(movedAt - start + 100);
      await expect.poll(async () => (await replayFrame(page, scope)).locator("#step2-heading").count()).toBe(1);
      expect(
        await page.locator(`${scope} [data-testid=replay-crumb][data-kind=navigation]`).filter({ hasText: "/step2" }).count(),
      ).toBeGreaterThan(0);
      const payClick = page.locator(`${scope} [data-testid=replay-crumb][data-kind=click]`).first();
      await payClick.click();
      await expect.poll(async () => (await replayFrame(page, scope)).locator("#step2-heading").count()).toBe(0);
      // The console line with HTML in it is text on the timeline; nothing ran.
      expect(await page.locator(`${scope} [data-testid=replay-crumb][data-kind=console]`).allInnerTexts()).toEqual(
        expect.arrayContaining([expect.stringContaining("<img src=x onerror=alert('xss-from-replay')>")]),
      );
      expect(await page.evaluate(() => document.querySelectorAll("img[src='x']").length)).toBe(0);
      // The rage click is on the timeline too.
      expect(await page.locator(`${scope} [data-testid=replay-crumb][data-kind=rage]`).count()).toBe(1);

      // Keyboard operable: Space plays and pauses the focused player.
      await player.focus();
      await page.keyboard.press("Space");
      await expect.poll(() => player.getAttribute("data-status")).toBe("playing");
      await page.keyboard.press("Space");
      await expect.poll(() => player.getAttribute("data-status")).toBe("paused");
      await page.close();
    });

    test("the replay page lists the error and counts the dead and rage clicks; the list filters to it", async () => {
      const page = await signIn(browser, server, email);
      await page.goto(`${server.url}/acme/replays?rage=1`);
      const row = page.locator(`[data-testid=replay-row][data-replay-id="${replayId}"]`);
      await row.waitFor();
      expect(await row.innerText()).toContain("buyer@example.com");
      await row.getByRole("link").first().click();
      await page.waitForURL(new RegExp(`/acme/replays/${replayId}$`));
      expect(await page.getByTestId("replay-errors").innerText()).toContain("replay e2e boom: order total is negative");
      expect(await page.locator("main").innerText()).toMatch(/1 dead · 1 rage/);
      await expect.poll(() => page.getByTestId("replay-player").getAttribute("data-status"), { timeout: 30_000 }).toBe("paused");
      await page.close();
    });
  });
}
