/**
 * Alerts in real Chromium against the real build: an admin adds a Slack-style webhook pointing at
 * the test's receiver, presses "Send a test" and sees the remote's answer, creates a rule, and a
 * real @sentry/node error then arrives at the receiver; the delivery log shows both. An issue's
 * alerts are muted from the issue page with the keyboard (a regression while muted reaches nobody;
 * after Unmute the next one does), and a rule's tag filters and throttle are edited and kept.
 * Screenshots light and dark go to docs/screenshots/ when ERRATA_SCREENSHOTS=1.
 */
import path from "node:path";
import { sql } from "kysely";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openDb } from "../src/storage/db.js";
import { findOrgBySlug, upsertMember } from "../src/storage/orgs/orgs.js";
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
import { shoot } from "./helpers/screenshots.js";
import { sendEvent, simpleError } from "./helpers/triage-fixtures.js";

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

  const shots = process.env.ERRATA_SCREENSHOTS === "1";
  const shotPath = (name: string) => path.join(ROOT, "docs", "screenshots", `${name}.png`);

  /** A REST client with a fresh token of the owner (each test its own). */
  async function restClient() {
    const token = (
      await server.cli("token", "create", "--email", "owner@example.com", "--scopes", "project:read,project:write,event:read,event:write")
    )
      .trim()
      .split("\n")
      .pop() as string;
    return async <T>(method: string, p: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${server.url}/api/0/${p}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return (res.status === 204 ? undefined : await res.json()) as T;
    };
  }

  test("webhook channel, send a test, a rule, and a real @sentry/node error at the receiver", async () => {
    const dsn = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "node");
    await page.goto(`${server.url}/acme/projects/web/settings/alerts`);
    // the default rule is there; without SMTP it e-mails nobody, and the page says how to set up mail or a channel
    await expect.poll(() => page.getByTestId("rule-row").count()).toBe(1);
    expect(await page.getByTestId("rule-row").innerText()).toContain("nowhere yet");
    const note = page.getByTestId("no-mail-note");
    expect(await note.innerText()).toMatch(/Email is not set up[\s\S]*SMTP_HOST[\s\S]*add a channel/);
    expect(await page.getByTestId("channel-row").count()).toBe(0);
    // no empty list box, but words; and the opt-out does not claim mail that cannot be sent
    expect(await page.getByTestId("no-channels").innerText()).toContain("No channels yet");
    expect(await page.getByRole("region", { name: "Your email from this project" }).innerText()).toContain("nobody gets alert emails yet");
    await shoot(page, "alerts-without-smtp");

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
  test("mute an issue's alerts from the issue page with the keyboard; muted regressions reach nobody, after Unmute they do", async () => {
    const api = await restClient();
    const dsn = (await server.cli("project", "create", "--org", "acme", "--name", "mute", "--platform", "node"))
      .trim()
      .split("\n")
      .pop() as string;
    const channel = await api<{ id: number }>("POST", "projects/acme/mute/alert-channels/", {
      kind: "slack",
      name: "#mute",
      config: { url: `${rx.url}/mute` },
    });
    await api("POST", "projects/acme/mute/rules/", {
      name: "Regressions to #mute",
      frequency: 0,
      conditions: [{ id: "sentry.rules.conditions.regression_event.RegressionEventCondition" }],
      actions: [{ id: "errata.rules.actions.NotifyChannelAction", channelId: channel.id }],
    });
    const title = "mute me: checkout.total is NaN";
    const send = () => sendEvent(server, dsn, simpleError("RangeError", title));
    await send();
    const issue = await eventually(
      async () => (await api<Array<{ id: string; count: string }>>("GET", "projects/acme/mute/issues/?query="))[0],
      30_000,
      "the issue",
    );
    const countIs = (n: number) =>
      eventually(
        async () => {
          const i = await api<{ count: string; status: string }>("GET", `organizations/acme/issues/${issue.id}/`);
          return Number(i.count) === n && i.status === "unresolved";
        },
        30_000,
        `event ${n} counted on the issue`,
      );
    const atReceiver = () => rx.received.filter((r) => r.path === "/mute" && r.body.includes(title));

    await page.goto(`${server.url}/acme/issues/${issue.id}`);
    const control = page.getByTestId("alert-mute");
    expect(await control.getAttribute("data-muted")).toBe("false");
    // "m" opens the menu (pressed until the page has hydrated), arrows move, Enter chooses.
    const menu = page.getByRole("menu", { name: "Mute alerts" });
    const openMuteMenu = () =>
      expect
        .poll(
          async () => {
            if (!(await menu.isVisible())) await page.keyboard.press("m");
            return menu.isVisible();
          },
          { timeout: 15_000 },
        )
        .toBe(true);
    await openMuteMenu();
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual(["For 1 hour", "For 24 hours", "For 7 days", "Until unmuted"]);
    if (shots) {
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await page.screenshot({ path: shotPath(`alerts-mute-menu-${theme}`), clip: { x: 0, y: 0, width: 1280, height: 420 } });
      }
      await page.emulateMedia({ colorScheme: "light" });
    }
    await page.keyboard.press("ArrowDown");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("For 24 hours");
    const before = Date.now();
    await page.keyboard.press("Enter");
    await expect.poll(() => control.getAttribute("data-muted")).toBe("true");
    expect(await control.innerText()).toMatch(/Alerts muted until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    const mute = await api<{ muted: boolean; until: number }>("GET", `organizations/acme/issues/${issue.id}/alert-mute/`);
    expect(mute.muted).toBe(true);
    expect(mute.until).toBeGreaterThanOrEqual(before + 24 * 3_600_000 - 5_000);
    expect(mute.until).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000 + 5_000);
    // the server renders it too
    await page.reload();
    await expect.poll(() => control.getAttribute("data-muted")).toBe("true");
    expect(await control.innerText()).toContain("Alerts muted until");
    if (shots) {
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await page.screenshot({ path: shotPath(`alerts-mute-muted-${theme}`), clip: { x: 0, y: 0, width: 1280, height: 420 } });
      }
      await page.emulateMedia({ colorScheme: "light" });
    }

    // A viewer of the organization sees the state but no control, and "m" does nothing for them.
    await server.cli("user", "create", "--email", "mute-viewer@example.com", "--password", PASSWORD, "--org", "mute-viewer-home");
    const db = openDb(server.db.config);
    try {
      const { rows } = await sql<{ id: string }>`select id from "user" where email = ${"mute-viewer@example.com"}`.execute(db.kysely);
      const acme = await findOrgBySlug(db, "acme");
      await db.kysely
        .transaction()
        .execute((tx) => upsertMember(tx, { orgId: acme?.id ?? -1, userId: rows[0]?.id ?? "", role: "viewer", now: Date.now() }));
    } finally {
      await db.close();
    }
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const viewer = await viewerContext.newPage();
      await viewer.goto(`${server.url}/login`);
      await viewer.getByLabel(/email/i).fill("mute-viewer@example.com");
      await viewer.getByLabel(/password/i).fill(PASSWORD);
      await viewer.getByRole("button", { name: /sign in/i }).click();
      await viewer.waitForURL((u) => !u.pathname.startsWith("/login"));
      await viewer.goto(`${server.url}/acme/issues/${issue.id}`);
      const seen = viewer.getByTestId("alert-mute");
      expect(await seen.innerText()).toContain("Alerts muted until");
      expect(await seen.getByRole("button").count()).toBe(0);
      // the page is interactive once "?" opens the shortcut sheet; then "m" must open nothing
      const sheet = viewer.getByRole("dialog", { name: "Keyboard shortcuts" });
      await expect
        .poll(
          async () => {
            if (!(await sheet.isVisible())) await viewer.keyboard.press("?");
            return sheet.isVisible();
          },
          { timeout: 15_000 },
        )
        .toBe(true);
      await viewer.keyboard.press("Escape");
      await sheet.waitFor({ state: "hidden" });
      await viewer.keyboard.press("m");
      expect(await viewer.getByRole("menu").count()).toBe(0);
      expect(await viewer.getByRole("button", { name: /mute/i }).count()).toBe(0);
    } finally {
      await viewerContext.close();
    }

    // A regression while muted: the digest decides in the transaction that counts the event, so
    // once the count shows it, nothing was queued.
    await api("PUT", `organizations/acme/issues/${issue.id}/`, { status: "resolved" });
    await send();
    await countIs(2);
    const log = await api<Array<{ issueId: number | null; trigger: string | null }>>("GET", "projects/acme/mute/alert-deliveries/");
    expect(log.filter((d) => d.issueId === Number(issue.id) && d.trigger === "regression")).toEqual([]);
    expect(atReceiver()).toEqual([]);

    // Unmute (pressed until the hydrated page answers), then the next regression is delivered.
    const unmute = control.getByRole("button", { name: "Unmute alerts" });
    await expect
      .poll(
        async () => {
          if (await unmute.isVisible()) await unmute.click();
          return control.getAttribute("data-muted");
        },
        { timeout: 15_000 },
      )
      .toBe("false");
    await control.getByRole("button", { name: "Mute alerts" }).waitFor();
    expect(await api("GET", `organizations/acme/issues/${issue.id}/alert-mute/`)).toEqual({ muted: false, until: null });
    await api("PUT", `organizations/acme/issues/${issue.id}/`, { status: "resolved" });
    await send();
    await eventually(async () => atReceiver().length === 1, 30_000, "the regression alert at the receiver");
    expect(JSON.parse(atReceiver()[0]?.body ?? "{}").text).toContain(`Regression in mute: RangeError: ${title}`);

    // A mute for 1 hour ends while the page stays open: the badge goes with it, not at the next
    // load. The page's clock is Playwright's, moved forward by the test: no waiting.
    await page.clock.install();
    await page.reload();
    await openMuteMenu();
    await page.keyboard.press("Enter"); // "For 1 hour"
    await expect.poll(() => control.getAttribute("data-muted")).toBe("true");
    await page.clock.fastForward(59 * 60_000);
    expect(await control.getAttribute("data-muted")).toBe("true");
    await page.clock.fastForward(2 * 60_000);
    await expect.poll(() => control.getAttribute("data-muted")).toBe("false");
    await control.getByRole("button", { name: "Mute alerts" }).waitFor();
  });

  test("edit a rule's tag filters and throttle; they are kept after a reload", async () => {
    const api = await restClient();
    await server.cli("project", "create", "--org", "acme", "--name", "rules", "--platform", "node");
    await page.goto(`${server.url}/acme/projects/rules/settings/alerts`);
    const row = page.locator('[data-testid="rule-row"][data-rule-name="New issues and regressions"]');
    await row.getByRole("link", { name: "Edit rule New issues and regressions" }).click();
    const form = row.getByTestId("edit-rule");
    await form.waitFor();
    expect(await form.getByTestId("tag-filter-row").count()).toBe(0);

    // Adding a row focuses its key (pressed until hydrated): typed straight in.
    const add = form.getByRole("button", { name: "+ Add tag filter" });
    await expect
      .poll(
        async () => {
          if ((await form.getByTestId("tag-filter-row").count()) === 0) await add.click();
          return form.getByTestId("tag-filter-row").count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    await expect.poll(() => form.getByLabel("Tag key 1").evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type("browser");
    await form.getByLabel("Match 1").selectOption("contains");
    await form.getByLabel("Tag value 1").fill("Chrome");
    await add.click();
    await form.getByLabel("Tag key 2").fill("url");
    await form.getByLabel("Tag value 2").fill("https://shop.example/checkout");
    await form.getByLabel("Throttle", { exact: true }).fill("2");
    await form.getByLabel("Throttle: unit").selectOption("hours");
    await form.getByRole("button", { name: "Save rule" }).click();
    await expect.poll(() => form.innerText()).toContain("Rule “New issues and regressions” saved.");

    await page.reload();
    await form.waitFor();
    expect(await form.getByLabel("Tag key 1").inputValue()).toBe("browser");
    expect(await form.getByLabel("Match 1").inputValue()).toBe("contains");
    expect(await form.getByLabel("Tag value 1").inputValue()).toBe("Chrome");
    expect(await form.getByLabel("Tag key 2").inputValue()).toBe("url");
    expect(await form.getByLabel("Match 2").inputValue()).toBe("equals");
    expect(await form.getByLabel("Tag value 2").inputValue()).toBe("https://shop.example/checkout");
    expect(await form.getByLabel("Throttle", { exact: true }).inputValue()).toBe("2");
    expect(await form.getByLabel("Throttle: unit").inputValue()).toBe("hours");
    const summary = await row.locator("dl").innerText();
    expect(summary).toContain("browser contains “Chrome”");
    expect(summary).toContain("url equals “https://shop.example/checkout”");
    expect(await row.innerText()).toContain("at most once per issue every 2 h");
    // the other fields went through unchanged: still new issues and regressions, still paused-or-not as before
    const rules = await api<Array<{ name: string; frequency: number; status: string; conditions: unknown[]; filters: unknown[] }>>(
      "GET",
      "projects/acme/rules/rules/",
    );
    expect(rules[0]).toMatchObject({ name: "New issues and regressions", frequency: 120, status: "active" });
    expect(rules[0]?.conditions).toHaveLength(2);
    expect(rules[0]?.filters).toEqual([
      { id: "sentry.rules.filters.tagged_event.TaggedEventFilter", key: "browser", match: "co", value: "Chrome" },
      { id: "sentry.rules.filters.tagged_event.TaggedEventFilter", key: "url", match: "eq", value: "https://shop.example/checkout" },
    ]);
    if (shots) {
      // A viewport tall enough for the whole row: no scrolling, so the sticky top bar covers nothing.
      await page.setViewportSize({ width: 1280, height: 2000 });
      await page.evaluate(() => window.scrollTo(0, 0));
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await row.screenshot({ path: shotPath(`alert-rule-form-${theme}`) });
      }
      await page.emulateMedia({ colorScheme: "light" });
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    // A value without a key is refused by the service and named by the form's label; removing the row fixes it.
    await form.getByRole("button", { name: "Remove tag filter 1" }).click();
    await add.click();
    await form.getByLabel("Tag value 2").fill("orphan");
    await form.getByRole("button", { name: "Save rule" }).click();
    await expect.poll(() => form.getByRole("alert").innerText()).toBe("Tag filters: every tag filter needs a key");
    await form.getByRole("button", { name: "Remove tag filter 2" }).click();
    await form.getByRole("button", { name: "Save rule" }).click();
    await expect.poll(() => form.innerText()).toContain("Rule “New issues and regressions” saved.");
    await page.reload();
    await form.waitFor();
    expect(await form.getByTestId("tag-filter-row").count()).toBe(1);
    expect(await form.getByLabel("Tag key 1").inputValue()).toBe("url");
  });

  test("a crash-free rule from the form: a bad threshold is named, the values are kept and carried by the REST shape", async () => {
    const api = await restClient();
    await server.cli("project", "create", "--org", "acme", "--name", "health", "--platform", "node");
    await page.goto(`${server.url}/acme/projects/health/settings/alerts`);
    const form = page.getByTestId("new-rule");
    await form.getByLabel("Name").fill("Crashing releases");
    await form.getByLabel("A new issue").uncheck();
    await form.getByLabel("A resolved issue regresses").uncheck();
    await form.getByLabel("A release's crash-free sessions drop below").check();
    await form.getByLabel("Crash-free: below percent").fill("0");
    await form.getByRole("button", { name: "Create rule" }).click();
    await expect.poll(() => form.getByRole("alert").innerText()).toBe("Crash-free trigger: use a percentage above 0");
    await form.getByLabel("Crash-free: below percent").fill("99.5");
    await form.getByLabel("Crash-free: minimum sessions").fill("200");
    await form.getByRole("button", { name: "Create rule" }).click();
    const row = page.locator('[data-testid="rule-row"][data-rule-name="Crashing releases"]');
    await row.waitFor();
    expect(await row.innerText()).toContain("crash-free sessions below 99.5% (≥ 200 sessions)");

    const rules = await api<Array<{ name: string; conditions: unknown[]; crashFree: unknown }>>("GET", "projects/acme/health/rules/");
    expect(rules.find((r) => r.name === "Crashing releases")).toMatchObject({
      conditions: [],
      crashFree: { belowPercent: 99.5, minSessions: 200 },
    });

    await row.getByRole("link", { name: "Edit rule Crashing releases" }).click();
    const edit = row.getByTestId("edit-rule");
    await edit.waitFor();
    expect(await edit.getByLabel("A release's crash-free sessions drop below").isChecked()).toBe(true);
    expect(await edit.getByLabel("Crash-free: below percent").inputValue()).toBe("99.5");
    expect(await edit.getByLabel("Crash-free: minimum sessions").inputValue()).toBe("200");
    // unchecking it (and nothing else) leaves a rule without a trigger: refused by name
    await edit.getByLabel("A release's crash-free sessions drop below").uncheck();
    await edit.getByRole("button", { name: "Save rule" }).click();
    await expect.poll(() => edit.getByRole("alert").innerText()).toBe("Triggers: choose at least one trigger");
  });
});
