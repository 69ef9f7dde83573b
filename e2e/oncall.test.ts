/**
 * Issue 33: the keyboard and the phone, in Chromium against the built server, on SQLite and
 * PostgreSQL.
 *
 * Keyboard: after `r` the focus stays on the row that moved up and `j` goes on from there; Enter
 * on the issue page's Resolve keeps the focus on that control; Escape closes the organization
 * switcher; the first Tab reaches a skip link; a focused issue title shows a ring; the theme toggle
 * says its state with aria-pressed.
 *
 * Phone (390×844, touch): members are reached from the stream through the menu, an issue is
 * resolved from its page, nothing scrolls sideways, the issue page's controls are at least 24 px
 * (44 px for resolve/ignore/assign) and its fields at least 16 px. With SCREENSHOTS=1 it saves
 * the phone issue page and stream, light and dark, to docs/screenshots/.
 */
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { dialects } from "../test/helpers/test-db.js";
import { SCREENSHOTS } from "./helpers/screenshots.js";
import { liveStreamSearch } from "./helpers/stream-search.js";
import { checkoutEvent, createTriageTenant, PASSWORD, sendEvent, simpleError } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();
const PHONE = { width: 390, height: 844 };

type ApiIssue = { id: string; title: string; status: string };

describe.skipIf(!canRun).each(await dialects())("keyboard and phone on %s", (dialect) => {
  let server: TestServer;
  let browser: Browser;
  let desk: BrowserContext;
  let phone: BrowserContext;
  let t: Awaited<ReturnType<typeof createTriageTenant>>;

  const api = async <T>(p: string): Promise<T> => {
    const res = await fetch(`${server.url}/api/0/${p}`, { headers: { authorization: `Bearer ${t.token}` } });
    if (!res.ok) throw new Error(`${p}: ${res.status}`);
    return (await res.json()) as T;
  };
  const issueByTitle = (title: string) =>
    eventually(async () => (await api<ApiIssue[]>("projects/acme/web/issues/?query=")).find((i) => i.title.includes(title)), 30_000, title);
  const statusOf = async (id: string) => (await api<ApiIssue>(`organizations/acme/issues/${id}/`)).status;
  /** The text of the focused element's row link, or its tag when it is not one. */
  const focusedRow = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement;
      return el?.matches("a[data-row-link]") ? (el.textContent ?? "") : `<${el?.tagName.toLowerCase()}>`;
    });

  beforeAll(async () => {
    server = await startServer({ dialect });
    t = await createTriageTenant(server, "acme", "web", "oncall@example.com");
    // A second organization: the owner gets the organization switcher.
    await server.cli("user", "create", "--email", t.email, "--password", PASSWORD, "--org", "globex");
    await sendEvent(server, t.dsn, checkoutEvent());
    for (const n of ["one", "two", "three", "four"])
      await sendEvent(server, t.dsn, simpleError("QueueError", `queue ${n} stalled`, { fingerprint: [`queue-${n}`] }));
    await eventually(async () => (await api<ApiIssue[]>("projects/acme/web/issues/?query=")).length >= 5, 30_000, "the seeded issues");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    desk = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await desk.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill(t.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/acme\/issues/);
    await page.close();
    phone = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true, storageState: await desk.storageState() });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /**
   * The first screen on a phone, light and dark, for docs/screenshots/ (SCREENSHOTS=1). A context
   * per theme: switching the colour scheme on a page also dropped the touch media features.
   */
  async function phoneShots(url: string, name: string): Promise<void> {
    if (!SCREENSHOTS || dialect !== "sqlite") return;
    for (const colorScheme of ["light", "dark"] as const) {
      const ctx = await browser.newContext({
        viewport: PHONE,
        hasTouch: true,
        isMobile: true,
        colorScheme,
        storageState: await desk.storageState(),
      });
      const shot = await ctx.newPage();
      await shot.goto(url);
      await shot.locator("main").first().waitFor();
      await shot.screenshot({ path: path.join(ROOT, "docs", "screenshots", `${name}-${colorScheme}.png`) });
      await ctx.close();
    }
  }

  test("after r the focus stays on the next row and j does not skip it", async () => {
    const page = await desk.newPage();
    await page.goto(`${server.url}/acme/issues?query=${encodeURIComponent("QueueError")}&sort=new`);
    await expect.poll(() => page.locator("tbody a[data-row-link]").count()).toBe(4);
    await (await liveStreamSearch(page)).evaluate((el) => (el as HTMLInputElement).blur());
    const titles = await page.locator("tbody a[data-row-link]").allTextContents();
    const firstId = (await page.locator("tbody a[data-row-link]").first().getAttribute("href"))?.split("/").at(-1) as string;
    await page.keyboard.press("j");
    expect(await focusedRow(page)).toBe(titles[0]);
    // A focused title shows a ring (it had none): the outline is drawn on the row-wide ::after.
    const ring = await page.evaluate(() => {
      const el = document.activeElement as Element;
      return getComputedStyle(el, "::after").outlineStyle;
    });
    expect(ring).not.toBe("none");
    await page.keyboard.press("r");
    await expect.poll(() => page.locator("tbody a[data-row-link]").count()).toBe(3);
    await expect.poll(() => focusedRow(page)).toBe(titles[1]);
    await page.keyboard.press("j");
    expect(await focusedRow(page)).toBe(titles[2]);
    await expect.poll(() => statusOf(firstId)).toBe("resolved");
    await page.close();
  });

  test("Enter on the issue page's Resolve keeps the focus on the status control", async () => {
    const issue = await issueByTitle("queue one stalled");
    const page = await desk.newPage();
    await page.goto(`${server.url}/acme/issues/${issue.id}`);
    const resolve = page.getByRole("button", { name: "Resolve", exact: true });
    // Focus it the way a keyboard user does, until the page has hydrated (Enter then acts).
    await resolve.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => statusOf(issue.id), { timeout: 15_000 }).toBe("resolved");
    const unresolve = page.getByRole("button", { name: "Unresolve", exact: true });
    await unresolve.waitFor();
    expect(await unresolve.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.close();
  });

  test("skip link first, Escape closes the organization switcher, the theme toggle says its state", async () => {
    const page = await desk.newPage();
    await page.goto(`${server.url}/acme/issues`);
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await skip.isVisible()).toBe(true);
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    await liveStreamSearch(page);

    const switcher = page
      .getByRole("button", { name: /Switch organization/ })
      .or(page.locator("summary[aria-label*='Switch organization']"));
    await switcher.focus();
    await page.keyboard.press("Enter");
    const globex = page.getByRole("link", { name: /globex/i });
    await globex.waitFor();
    await page.keyboard.press("Escape");
    await expect.poll(() => globex.isVisible()).toBe(false);
    expect(await switcher.evaluate((el) => el === document.activeElement)).toBe(true);

    const toggle = page.getByRole("button", { name: /theme/i });
    const pressed = await toggle.getAttribute("aria-pressed");
    expect(["true", "false", "mixed"]).toContain(pressed);
    await toggle.click();
    await expect.poll(() => toggle.getAttribute("aria-pressed")).not.toBe(pressed);
    await toggle.click();
    await toggle.click();
    await page.close();
  });

  test("the stream's first-load JavaScript stays within 150 KB gzipped", async () => {
    // The scripts the stream's HTML loads, read from the build output (.next/static) and gzipped.
    const html = await (await desk.request.get(`${server.url}/acme/issues`)).text();
    // The noModule polyfills are not loaded by a browser that runs modules (every current one).
    const tags = [...html.matchAll(/<script[^>]+>/g)].map((m) => m[0]).filter((tag) => !/noModule/i.test(tag));
    const srcs = [...new Set(tags.flatMap((tag) => /src="\/_next\/(static\/[^"?]+)/.exec(tag)?.[1] ?? []))];
    expect(srcs.length).toBeGreaterThan(0);
    const bytes = srcs.reduce((sum, src) => sum + gzipSync(fs.readFileSync(path.join(ROOT, ".next", src))).length, 0);
    console.log(`stream first-load JS: ${srcs.length} scripts, ${(bytes / 1024).toFixed(1)} KB gzipped`);
    expect(bytes).toBeLessThanOrEqual(150 * 1024);
  });

  test("phone: from the stream to Members through the menu, with Teams and Settings reachable", async () => {
    const page = await phone.newPage();
    await page.goto(`${server.url}/acme/issues`);
    await page.locator("[data-row-link]").first().waitFor();
    // The stream says how many issues are listed.
    expect(await page.getByTestId("stream-count").isVisible()).toBe(true);
    expect(await page.getByTestId("stream-count").textContent()).toMatch(/\d+ issues?/);
    await noSideScroll(page);
    // The filters wait behind one button, so the issues start on the first screen.
    const project = page.getByRole("combobox", { name: "Project" });
    expect(await project.isVisible()).toBe(false);
    await phoneShots(page.url(), "phone-stream");
    const filters = page.getByRole("button", { name: /^Filters/ });
    await filters.tap();
    await expect.poll(() => project.isVisible()).toBe(true);
    expect(await filters.getAttribute("aria-expanded")).toBe("true");
    await page.getByLabel("Menu: sections").tap();
    const nav = page.getByRole("navigation", { name: "Sections menu" });
    for (const name of ["Settings", "Members", "Teams"]) expect(await nav.getByRole("link", { name, exact: true }).isVisible()).toBe(true);
    await nav.getByRole("link", { name: "Members", exact: true }).tap();
    await page.waitForURL(/\/acme\/settings\/members/);
    // In the page, not the (closed) menu's account line, which holds the same address.
    await page.locator("#main").getByText(t.email).first().waitFor();
    // Every settings section is on screen (the row was cut: "Data sc…").
    const settingsNav = page.getByRole("navigation", { name: "Organization settings" });
    for (const name of ["Members", "Teams", "Tokens"]) expect(await inViewport(settingsNav.getByRole("link", { name }))).toBe(true);
    await noSideScroll(page);
    await page.close();
  });

  test("phone: the issue page fits, its targets are large enough, and Resolve works by touch", async () => {
    const issue = await issueByTitle("Cannot read properties");
    const page = await phone.newPage();
    await page.goto(`${server.url}/acme/issues/${issue.id}`);
    await page.locator("section#exception").waitFor();
    await phoneShots(page.url(), "phone-issue");
    await noSideScroll(page);
    // At most one sticky bar, and a slim one.
    const sticky = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("body *")]
        .filter((el) => ["sticky", "fixed"].includes(getComputedStyle(el).position) && el.getBoundingClientRect().height > 0)
        .map((el) => Math.round(el.getBoundingClientRect().height)),
    );
    expect(sticky.length).toBeLessThanOrEqual(1);
    expect(Math.max(0, ...sticky)).toBeLessThanOrEqual(56);
    // The exception comes before the trend chart, tags and breadcrumbs follow.
    const order = await page.evaluate(() =>
      ["#exception", "#tags-title", "#breadcrumbs"].map((s) => document.querySelector(s)?.getBoundingClientRect().top ?? -1),
    );
    expect(order.every((y) => y > 0)).toBe(true);
    expect(order[0]).toBeLessThan(order[2] as number);
    const small = await page.evaluate(() => {
      const out: string[] = [];
      for (const el of document.querySelectorAll<HTMLElement>(
        "a[href], button, summary, select, input:not([type=hidden]), [role=button]",
      )) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === "hidden") continue;
        // Inline links inside a sentence are exempt (WCAG 2.5.8's inline exception).
        if (el.tagName === "A" && el.closest("p, li p, dd") && getComputedStyle(el).display === "inline") continue;
        if (el.closest(".sr-only")) continue;
        if (r.width < 24 || r.height < 24)
          out.push(
            `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`,
          );
      }
      return out;
    });
    expect(small).toEqual([]);
    for (const name of ["Resolve", "Ignore", "Assign"]) {
      const box = await page.getByRole("button", { name, exact: true }).boundingBox();
      expect(box?.height ?? 0, name).toBeGreaterThanOrEqual(44);
    }
    const fieldSizes = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("input:not([type=checkbox]):not([type=radio]):not([type=hidden]), select, textarea")]
        .filter((el) => el.getBoundingClientRect().height > 0)
        .map((el) => Number.parseFloat(getComputedStyle(el).fontSize)),
    );
    expect(fieldSizes.length).toBeGreaterThan(0);
    expect(Math.min(...fieldSizes)).toBeGreaterThanOrEqual(16);
    await page.getByRole("button", { name: "Resolve", exact: true }).tap();
    await expect.poll(() => statusOf(issue.id), { timeout: 15_000 }).toBe("resolved");
    await page.getByRole("button", { name: "Unresolve", exact: true }).waitFor();
    await page.close();
  });
});

async function noSideScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

async function inViewport(locator: ReturnType<Page["locator"]>): Promise<boolean> {
  const box = await locator.boundingBox();
  const width = locator.page().viewportSize()?.width ?? 0;
  return Boolean(box && box.x >= 0 && box.x + box.width <= width);
}
