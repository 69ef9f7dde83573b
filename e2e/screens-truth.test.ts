/**
 * Issue 14 "Screens that tell the truth" (and issue 10's issue-page fixes) in Chromium against the
 * built server: the search box under zero-delay typing, a real @sentry/node message drawn as a
 * message with its stack, Undo keeping `new`, the toast clear of the bulk bar, an unknown search
 * key's positioned error, merge naming and redirecting its survivor, the phone menu, and the issue
 * page's tags, context keys and breadcrumbs.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, startServer, type TestServer } from "../test/helpers/server.js";
import { liveStreamSearch } from "./helpers/stream-search.js";
import { createTriageTenant, PASSWORD, sendEvent, simpleError } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

/** A real @sentry/node 11 `captureMessage` (with its stack) sent to the server. */
async function captureMessageWithSdk(dsn: string, text: string): Promise<void> {
  const Sentry = await import("@sentry/node");
  const client = new Sentry.NodeClient({
    dsn,
    transport: Sentry.makeNodeTransport,
    stackParser: Sentry.defaultStackParser,
    integrations: [],
    attachStacktrace: true,
  });
  const scope = new Sentry.Scope();
  scope.setClient(client);
  client.init();
  scope.captureMessage(text, "warning");
  if (!(await client.flush(15_000))) throw new Error("the SDK did not flush");
}

describe.skipIf(!canRun)("screens that tell the truth", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let t: Awaited<ReturnType<typeof createTriageTenant>>;

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${server.url}/api/0/${path}`, { headers: { authorization: `Bearer ${t.token}` } });
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return (await res.json()) as T;
  };
  type ApiIssue = { id: string; shortId: string; title: string; status: string; substatus: string | null };
  const issues = () => api<ApiIssue[]>("projects/acme/web/issues/?query=");
  const issueByTitle = async (title: string) =>
    eventually(async () => (await issues()).find((i) => i.title.includes(title)), 30_000, `issue "${title}"`);
  const rowTitles = () => page.locator("tbody a[data-row-link]").allTextContents();
  const search = () => page.getByRole("combobox", { name: "Search issues" });

  /** Keys pressed before hydration are lost: "/" focusing the search proves the page is live. */
  async function untilInteractive(): Promise<void> {
    await (await liveStreamSearch(page)).evaluate((el) => (el as HTMLInputElement).blur());
  }

  beforeAll(async () => {
    server = await startServer();
    t = await createTriageTenant(server, "acme", "web", "truth@example.com");
    // Tag values that the completion offers while the key is still being typed.
    // Own fingerprints: the same stack would otherwise group the three into one issue.
    for (const [region, message] of [
      ["eu-west-1", "only in eu-west-1"],
      ["eu-west-2", "only in eu-west-2"],
      ["us-east-1", "only in us-east-1"],
    ])
      await sendEvent(server, t.dsn, simpleError("RegionError", message, { tags: { region }, fingerprint: [region] }));
    await sendEvent(
      server,
      t.dsn,
      simpleError("PageError", "issue page details", {
        request: { url: "https://shop.example/cart", headers: { "User-Agent": IPHONE } },
        contexts: { app: { app_start_time: "2026-11-24T07:00:00Z", app_memory: 1024 } },
        breadcrumbs: { values: [{ message: "bare crumb" }, { category: "ui.click", level: "warning", message: "clicked" }] },
      }),
    );
    await captureMessageWithSdk(t.dsn, "Cache warmup took longer than 10s");
    const want = ["only in eu-west-1", "only in eu-west-2", "only in us-east-1", "issue page details", "Cache warmup"];
    await eventually(
      async () => {
        const titles = (await issues()).map((i) => i.title);
        const missing = want.filter((w) => !titles.some((x) => x.includes(w)));
        if (missing.length > 0) throw new Error(`missing ${missing.join(", ")}; have ${titles.join(" | ")}`);
        return true;
      },
      60_000,
      "the seeded issues",
    );
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

  test("search keeps the query typed with no delay between keys (repeated)", async () => {
    for (let round = 1; round <= 6; round++) {
      await page.goto(`${server.url}/acme/issues`);
      await page.locator("tbody tr").first().waitFor();
      await untilInteractive();
      await page.keyboard.press("/");
      await page.keyboard.type("region:eu-west-1", { delay: 0 });
      await page.keyboard.press("Enter");
      await page.waitForURL(/query=region%3Aeu-west-1/, { timeout: 15_000 });
      await expect.poll(rowTitles).toEqual(["RegionError: only in eu-west-1"]);
      expect(await search().inputValue(), `round ${round}`).toBe("region:eu-west-1");
    }
  });

  test("an unknown search key gets a positioned error, timesSeen compares", async () => {
    await page.goto(`${server.url}/acme/issues?query=${encodeURIComponent("level:error timesSee:>10")}`);
    const alert = page.getByRole("alert").filter({ hasText: "Unknown search key" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("^ here (character 13)");
    await page.goto(`${server.url}/acme/issues?query=${encodeURIComponent("timesSeen:>=1 RegionError")}`);
    await expect.poll(async () => (await rowTitles()).length).toBe(3);
  });

  test("a real SDK message is titled and drawn as a message with its stack", async () => {
    const issue = await issueByTitle("Cache warmup");
    expect(issue.title).toBe("Cache warmup took longer than 10s");
    await page.goto(`${server.url}/acme/issues/${issue.id}`);
    await page.getByRole("heading", { name: "Latest event" }).waitFor();
    const main = page.locator("main");
    expect(await main.locator("h1").first().textContent()).not.toMatch(/^Error/);
    await page.locator("section#message").getByText("Cache warmup took longer than 10s").waitFor();
    expect(await page.locator("section#stacktrace").count()).toBe(1);
    expect(await page.locator("section#exception").count()).toBe(0);
    expect(await main.getByText("handled", { exact: true }).count()).toBe(0);
  });

  test("issue page: the event's tags (with the User-Agent's), whole context keys, breadcrumb defaults", async () => {
    const issue = await issueByTitle("issue page details");
    await page.goto(`${server.url}/acme/issues/${issue.id}`);
    const tags = page.locator("section#tags");
    await tags.waitFor();
    expect(await tags.textContent()).not.toContain("No tags.");
    for (const s of ["browser", "Mobile Safari 17.4", "os", "iOS 17.4", "device", "iPhone"]) expect(await tags.textContent()).toContain(s);
    // Context keys wrap at separators only, never inside a word.
    const key = page.locator("section#contexts th", { hasText: "app_start" }).first();
    expect(await key.evaluate((el) => getComputedStyle(el).overflowWrap)).toBe("normal");
    expect(await key.locator("wbr").count()).toBeGreaterThan(0);
    // A breadcrumb without category or level shows Sentry's defaults, not bare dashes.
    const bare = page.locator("section#breadcrumbs tr", { hasText: "bare crumb" });
    expect(await bare.locator("td").nth(1).textContent()).toBe("default");
    expect(await bare.locator("td").nth(2).textContent()).toBe("info");
  });

  test("Undo of a resolve keeps a new issue new; the toast stays clear of the bulk bar", async () => {
    const issue = await issueByTitle("only in us-east-1");
    expect(issue.substatus).toBe("new");
    await page.goto(`${server.url}/acme/issues?query=${encodeURIComponent("RegionError")}`);
    await expect.poll(async () => (await rowTitles()).length).toBe(3);
    const row = (title: string) => page.locator("tbody tr", { has: page.locator("a[data-row-link]", { hasText: title }) });
    await row("only in us-east-1").getByRole("checkbox").check();
    const bar = page.getByRole("toolbar", { name: "Bulk actions" });
    await bar.getByRole("button", { name: "Resolve" }).click();
    const toast = page.getByRole("status").filter({ hasText: /Resolved/ });
    await toast.waitFor();
    await eventually(async () => (await api<ApiIssue>(`organizations/acme/issues/${issue.id}/`)).status === "resolved", 10_000, "resolved");
    // Select another row while the toast is up: both must be visible, not on top of each other.
    await row("only in eu-west-2").getByRole("checkbox").check();
    await bar.waitFor();
    const [a, b] = [await toast.boundingBox(), await bar.boundingBox()];
    expect(a && b).toBeTruthy();
    if (a && b) expect(a.y + a.height <= b.y || b.y + b.height <= a.y).toBe(true);
    await toast.getByRole("button", { name: "Undo" }).click();
    await eventually(
      async () => {
        const now = await api<ApiIssue>(`organizations/acme/issues/${issue.id}/`);
        return now.status === "unresolved" && now.substatus === "new";
      },
      10_000,
      "back to unresolved/new",
    );
  });

  test("merge on the issue page keeps this issue, as the dialog says; the merged URL redirects to it", async () => {
    await sendEvent(server, t.dsn, simpleError("MergeError", "merged away", { fingerprint: ["merged-away"] }));
    await sendEvent(server, t.dsn, simpleError("MergeError", "survivor", { fingerprint: ["survivor"] }));
    const gone = await issueByTitle("merged away");
    const keep = await issueByTitle("survivor");
    await page.goto(`${server.url}/acme/issues/${keep.id}`);
    await page.getByRole("button", { name: "Merge…" }).click();
    const dialog = page.getByRole("dialog", { name: "Merge issues" });
    await dialog.getByRole("heading", { name: `Merge into ${keep.shortId}` }).waitFor();
    expect(await dialog.textContent()).toContain(`Their events join ${keep.shortId}`);
    await dialog.getByLabel("Issues to merge").fill(gone.shortId);
    await dialog.getByRole("button", { name: "Merge" }).click();
    await page.waitForURL(new RegExp(`/acme/issues/${keep.id}$`));
    await eventually(async () => (await api<{ count: string }>(`organizations/acme/issues/${keep.id}/`)).count === "2", 10_000, "merged");
    await page.goto(`${server.url}/acme/issues/${gone.id}`);
    await page.waitForURL(new RegExp(`/acme/issues/${keep.id}$`));
    await page.getByRole("heading", { name: "Latest event" }).waitFor();
  });

  test("at 390 px a menu reaches every section (Feedback and Projects were hidden)", async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 800 }, storageState: await page.context().storageState() });
    await phone.goto(`${server.url}/acme/issues`);
    const menu = phone.getByLabel("Menu: sections");
    await menu.click();
    const nav = phone.getByRole("navigation", { name: "Sections menu" });
    for (const name of ["Issues", "Releases", "Feedback", "Projects"]) expect(await nav.getByRole("link", { name }).isVisible()).toBe(true);
    await nav.getByRole("link", { name: "Feedback" }).click();
    await phone.waitForURL(/\/acme\/feedback/);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await phone.close();
  });
});
