/**
 * Triage end to end in Chromium against the built server: search with three filters (and the
 * autocompletion and a positioned parse error), keyboard-resolve an issue and undo it, bulk-ignore,
 * open an event and page through events, switch frames raw/original on a source-mapped event,
 * leave a comment, see a new event arrive live; plus the `?` sheet, no layout shift, and phone width.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, startServer, type TestServer } from "../test/helpers/server.js";
import { liveStreamSearch } from "./helpers/stream-search.js";
import { createTriageTenant, PASSWORD, seedTriage, sendEvent, simpleError } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();

describe.skipIf(!canRun)("triage in the browser", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let t: Awaited<ReturnType<typeof createTriageTenant>>;

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${server.url}/api/0/${path}`, { headers: { authorization: `Bearer ${t.token}` } });
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return (await res.json()) as T;
  };
  const issueStatus = async (id: string) => (await api<{ status: string }>(`organizations/acme/issues/${id}/`)).status;
  const rowTitles = () => page.locator("tbody a[data-row-link]").allTextContents();
  const issueIdOf = async (title: string) => {
    const href = await page.locator("tbody a[data-row-link]", { hasText: title }).first().getAttribute("href");
    return href?.split("/").at(-1) as string;
  };

  beforeAll(async () => {
    server = await startServer();
    t = await createTriageTenant(server, "acme", "web", "triage@example.com");
    await seedTriage(server, t);
    await eventually(async () => (await api<unknown[]>("projects/acme/web/issues/?query=")).length >= 6, 30_000, "the seeded issues");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill(t.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/acme\/issues/);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /**
   * Keys pressed before React has hydrated the page are not handled. "/" focusing the search is
   * the page's own proof of life: press it until it works (then leave the search unless asked).
   */
  async function untilInteractive(opts: { keepFocus?: boolean } = {}): Promise<void> {
    const search = await liveStreamSearch(page);
    if (!opts.keepFocus) await search.evaluate((el) => (el as HTMLInputElement).blur());
  }

  test("search with three filters, autocompletion, and a parse error at its position", async () => {
    await page.goto(`${server.url}/acme/issues`);
    const search = page.getByRole("combobox", { name: "Search issues" });
    // "/" focuses the search; typing a key prefix offers the key, Tab takes it.
    await untilInteractive({ keepFocus: true });
    expect(await search.inputValue()).toBe("");
    await page.keyboard.type("level:error envi");
    const suggestions = page.getByRole("listbox", { name: "Suggestions" });
    await suggestions.getByRole("option", { name: /^environment/ }).waitFor();
    await page.keyboard.press("Tab");
    expect(await search.inputValue()).toBe("level:error environment:");
    // Values come from the project's data.
    await suggestions.getByRole("option", { name: "production" }).click();
    expect(await search.inputValue()).toBe("level:error environment:production ");
    await page.keyboard.type("Cannot");
    await page.keyboard.press("Enter");
    await page.waitForURL(/query=level%3Aerror\+environment%3Aproduction\+Cannot|query=level%3Aerror%20environment%3Aproduction%20Cannot/);
    // The third filter from its menu.
    await page.getByRole("combobox", { name: "Release" }).selectOption("web@1.4.2");
    await page.waitForURL(/release=web%401\.4\.2/);
    await expect.poll(rowTitles).toEqual(["TypeError: Cannot read properties of undefined (reading 'total')"]);

    await search.fill("level:error is:sleeping");
    await search.press("Enter");
    const alert = page.getByRole("alert").filter({ hasText: "Unknown status" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("(at character 13)");
    expect(await alert.textContent()).toContain("^ here (character 13)");
  });

  test("keyboard: j/k move, r resolves at once, Undo brings it back; ? lists the keys", async () => {
    await page.goto(`${server.url}/acme/issues`);
    await page.locator("tbody tr").first().waitFor();
    await untilInteractive();
    const before = await rowTitles();
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await page.keyboard.press("k");
    const target = before[0] as string;
    const id = await issueIdOf(target);
    await page.keyboard.press("r");
    // Optimistic: gone before the server answers; the toast names it and offers Undo.
    await expect.poll(rowTitles).not.toContain(target);
    const toast = page.getByRole("status").filter({ hasText: /Resolved/ });
    await toast.waitFor();
    await eventually(async () => (await issueStatus(id)) === "resolved", 10_000, "resolved on the server");
    await toast.getByRole("button", { name: "Undo" }).click();
    // The row returns with the refresh after the server action: both can take seconds under load.
    await expect.poll(rowTitles, { timeout: 15_000 }).toContain(target);
    await eventually(async () => (await issueStatus(id)) === "unresolved", 10_000, "unresolved again");

    await page.keyboard.press("?");
    const sheet = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await sheet.waitFor();
    expect(await sheet.textContent()).toMatch(/resolve[\s\S]*ignore[\s\S]*assign/);
    await page.keyboard.press("Escape");
    await sheet.waitFor({ state: "hidden" });
  });

  test("bulk-ignore two issues from the bulk bar", async () => {
    await page.goto(`${server.url}/acme/issues`);
    const titles = ["AuthError: Session token expired while renewing", "RangeError: Refund amount exceeds the captured amount"];
    const ids = await Promise.all(titles.map(issueIdOf));
    for (const title of titles) {
      const row = page.locator("tbody tr", { has: page.locator("a[data-row-link]", { hasText: title }) });
      await row.getByRole("checkbox").check();
    }
    const bar = page.getByRole("toolbar", { name: "Bulk actions" });
    await bar.waitFor();
    expect(await bar.textContent()).toContain("2 selected");
    await bar.getByRole("button", { name: "Ignore selected" }).click();
    await page.getByRole("menuitem", { name: "Ignore forever" }).click();
    await expect.poll(rowTitles).not.toContain(titles[0]);
    expect(await rowTitles()).not.toContain(titles[1]);
    for (const id of ids) await eventually(async () => (await issueStatus(id)) === "ignored", 10_000, "ignored on the server");
    await page.goto(`${server.url}/acme/issues?status=ignored`);
    await expect.poll(async () => (await rowTitles()).sort()).toEqual([...titles].sort());
  });

  test("open an event, page to an older one, and the events list", async () => {
    await page.goto(`${server.url}/acme/issues`);
    await page.locator("tbody a[data-row-link]", { hasText: "TypeError: Cannot read" }).click();
    await page.waitForURL(/\/acme\/issues\/\d+$/);
    await page.getByRole("heading", { name: "Latest event" }).waitFor();
    const text = await page.locator("main").textContent();
    for (const s of [
      "computeTotal",
      "src/lib/pricing.ts",
      "sum += item.price.total * item.qty;",
      "price cache miss for SKU-77",
      "curl -X 'POST'",
      "Chrome 124",
    ])
      expect(text).toContain(s);
    // Tag distribution: 5 events, production on 4 of them (the name starts with the visible text).
    expect(await page.getByRole("link", { name: /^production 80%\s?: 4 events/ }).count()).toBe(1);

    await page.getByRole("navigation", { name: "Event navigation" }).getByRole("link", { name: "Older" }).click();
    await page.waitForURL(/\?event=[0-9a-f]{32}$/);
    await page.getByRole("heading", { name: "Event", exact: true }).waitFor();
    await page.keyboard.press("N");
    await page.getByRole("heading", { name: "Latest event" }).waitFor();

    await page.getByRole("link", { name: "All events" }).first().click();
    await page.waitForURL(/\/events$/);
    expect(await page.locator("tbody tr").count()).toBe(5);
    await page.getByLabel("Filter events").fill("environment:staging");
    await page.getByLabel("Filter events").press("Enter");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
  });

  test("switch frames raw / original on a source-mapped event", async () => {
    await page.goto(`${server.url}/acme/issues?query=${encodeURIComponent("thrower")}`);
    await page.locator("tbody a[data-row-link]").first().click();
    await page.waitForURL(/\/acme\/issues\/\d+$/);
    const original = page.getByTestId("frames-original").first();
    const raw = page.getByTestId("frames-raw").first();
    await original.waitFor();
    expect(await original.textContent()).toContain("src/app.js");
    expect(await raw.isVisible()).toBe(false);
    await page.getByRole("button", { name: "Raw", exact: true }).click();
    await raw.waitFor();
    expect(await original.isVisible()).toBe(false);
    const minified = await raw.textContent();
    expect(minified).toContain("http://localhost/assets/app.js");
    expect(minified).not.toContain("src/app.js");
    expect(await page.getByRole("button", { name: "Raw", exact: true }).getAttribute("aria-pressed")).toBe("true");
    await page.getByRole("button", { name: "Original", exact: true }).click();
    await original.waitFor();
  });

  test("leave a comment (markdown rendered as elements, links only http(s))", async () => {
    await page.goto(`${server.url}/acme/issues`);
    await page.locator("tbody a[data-row-link]", { hasText: "Payment provider latency" }).click();
    await page.waitForURL(/\/acme\/issues\/\d+$/);
    await page.getByLabel("Comment").fill("**Fixed** by [the PR](https://example.com/pr/1), not [this](javascript:alert(1))");
    await page.getByRole("button", { name: "Comment" }).click();
    const activity = page.getByRole("list", { name: "Activity" });
    await activity.getByText("Fixed", { exact: true }).waitFor();
    expect(await activity.locator("strong", { hasText: "Fixed" }).count()).toBe(1);
    const link = activity.getByRole("link", { name: "the PR" });
    expect(await link.getAttribute("href")).toBe("https://example.com/pr/1");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer nofollow");
    expect(await activity.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.getByLabel("Comment").inputValue()).toBe("");
  });

  test("a new event shows up without a reload", async () => {
    await page.goto(`${server.url}/acme/issues`);
    await page.locator("tbody tr").first().waitFor();
    await sendEvent(server, t.dsn, simpleError("LiveError", "arrived while watching"));
    const pill = page.getByRole("button", { name: /1 new issue.*show/ });
    await pill.waitFor({ timeout: 20_000 });
    await pill.click();
    await expect.poll(rowTitles).toContain("LiveError: arrived while watching");
  });

  test("no layout shift while loading; usable at 390 px wide", async () => {
    const measure = async (url: string) => {
      const p = await browser.newPage({ viewport: { width: 1280, height: 800 }, storageState: await page.context().storageState() });
      await p.addInitScript(() => {
        (window as unknown as { __cls: number }).__cls = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>)
            if (!e.hadRecentInput) (window as unknown as { __cls: number }).__cls += e.value;
        }).observe({ type: "layout-shift", buffered: true });
      });
      await p.goto(url);
      await p.waitForLoadState("networkidle");
      await p.waitForTimeout(300);
      const cls = await p.evaluate(() => (window as unknown as { __cls: number }).__cls);
      await p.close();
      return cls;
    };
    const issueHref = await (async () => {
      await page.goto(`${server.url}/acme/issues`);
      return page.locator("tbody a[data-row-link]", { hasText: "TypeError" }).getAttribute("href");
    })();
    expect(await measure(`${server.url}/acme/issues`)).toBeLessThan(0.02);
    expect(await measure(`${server.url}${issueHref}`)).toBeLessThan(0.02);

    const phone = await browser.newPage({ viewport: { width: 390, height: 800 }, storageState: await page.context().storageState() });
    for (const url of [`${server.url}/acme/issues`, `${server.url}${issueHref}`]) {
      await phone.goto(url);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, url).toBeLessThanOrEqual(0);
    }
    await phone.goto(`${server.url}/acme/issues`);
    await phone.getByRole("combobox", { name: "Search issues" }).waitFor();
    expect(await phone.locator("tbody a[data-row-link]").count()).toBeGreaterThan(3);
    await phone.close();
  });
});
