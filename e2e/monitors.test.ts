/**
 * The monitor screens in Chromium: the list (status, schedule, timeline strip, next run), the
 * monitor page (environments with the open issue, durations chart, check-in list), mute and pause
 * through the page's buttons. History is made with check-in envelopes sent at test-clock times
 * (ERRATA_TEST_CLOCK_FILE). With ERRATA_SCREENSHOTS=1 it saves light and dark screenshots to
 * docs/screenshots/.
 */
import fs from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { tempDir } from "../test/helpers/test-db.js";

const canRun = chromiumAvailable();
const MIN = 60_000;
const PASSWORD = "correct horse battery";

describe.skipIf(!canRun)("monitor screens", () => {
  let server: TestServer;
  let browser: Browser;
  let dsn: URL;
  let token: string;
  let clockFile: string;
  const start = Math.floor(Date.now() / (60 * MIN)) * 60 * MIN - 21 * 60 * MIN;

  async function count(slug: string): Promise<number> {
    const res = await fetch(`${server.url}/api/0/organizations/acme/monitors/${slug}/checkins/`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return res.ok ? ((await res.json()) as unknown[]).length : 0;
  }

  /** One finished run at `at` (test clock), stored before returning. */
  async function run(slug: string, at: number, status: "ok" | "error", durationS: number, config?: Record<string, unknown>) {
    fs.writeFileSync(clockFile, String(at));
    const id = crypto.randomUUID().replaceAll("-", "");
    const items = [
      { check_in_id: id, monitor_slug: slug, status: "in_progress", ...(config ? { monitor_config: config } : {}) },
      { check_in_id: id, monitor_slug: slug, status, duration: durationS },
    ];
    const body = `{}\n${items.map((i) => `{"type":"check_in"}\n${JSON.stringify(i)}`).join("\n")}\n`;
    const before = await count(slug);
    const res = await fetch(`${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`, { method: "POST", body });
    expect(res.status).toBe(200);
    await eventually(async () => (await count(slug)) > before, 20_000, `${slug} check-in stored`);
  }

  async function signIn(page: Page) {
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill("dev@example.com");
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.getByRole("button", { name: /sign in|log in/i }).click();
    await page.waitForURL(/\/acme\//);
  }

  async function shoot(page: Page, name: string) {
    if (process.env.ERRATA_SCREENSHOTS !== "1") return;
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: path.join(ROOT, "docs/screenshots", `${name}-${scheme}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: "light" });
  }

  beforeAll(async () => {
    clockFile = path.join(tempDir(), "clock");
    fs.writeFileSync(clockFile, String(start));
    server = await startServer({ env: { ERRATA_TEST_CLOCK_FILE: clockFile, MONITOR_TICK_MS: "200" } });
    await server.cli("user", "create", "--email", "dev@example.com", "--password", PASSWORD, "--org", "acme");
    dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "jobs", "--platform", "node"));
    token = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "org:read,project:read,project:write,event:read");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const hourly = { schedule: { type: "crontab", value: "0 * * * *" }, checkin_margin: 5, max_runtime: 30, timezone: "Europe/Vienna" };
    // 20 hourly runs of a report job, two failing; a backup job that then fails.
    for (let h = 0; h < 20; h++) {
      const failed = h === 7 || h === 15;
      await run("nightly-report", start + h * 60 * MIN + 30_000, failed ? "error" : "ok", 40 + ((h * 37) % 50), hourly);
    }
    const every10 = { schedule: { type: "interval", value: 10, unit: "minute" }, checkin_margin: 2, max_runtime: 5 };
    for (let i = 0; i < 6; i++) await run("db-backup", start + 20 * 60 * MIN + i * 10 * MIN, i < 5 ? "ok" : "error", 12 + i, every10);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("list: both monitors with status, schedule, strip and next run; the top bar links to it", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 560 } });
    await signIn(page);
    await page.getByRole("link", { name: "Monitors" }).click();
    await page.waitForURL(/\/acme\/monitors$/);
    const list = page.getByTestId("monitor-list");
    await expect.poll(() => list.locator("tbody tr").count()).toBe(2);
    const report = list.locator("tr", { hasText: "nightly-report" });
    expect(await report.textContent()).toContain("0 * * * *");
    expect(await report.getByTestId("checkin-strip").locator("span[title]").count()).toBeGreaterThanOrEqual(20);
    expect(await list.locator("tr", { hasText: "db-backup" }).textContent()).toContain("Failed");
    await shoot(page, "monitors-list");
    await page.close();
  });

  test("monitor page: environments with the open issue, durations, check-ins; mute and pause", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    await page.goto(`${server.url}/acme/monitors/db-backup`);
    expect(await page.getByTestId("checkin-list").locator("tbody tr").count()).toBe(6);
    await expect.poll(() => page.getByRole("link", { name: "Open issue" }).count()).toBe(1);
    expect(await page.getByRole("img", { name: /Durations of the last 6 check-ins/ }).count()).toBe(1);
    await shoot(page, "monitor-detail");
    await page.getByRole("button", { name: "Mute" }).click();
    await expect.poll(async () => page.getByTestId("monitor-status").textContent()).toContain("muted");
    await page.getByRole("button", { name: "Pause" }).click();
    await expect.poll(async () => page.getByTestId("monitor-status").textContent()).toContain("Paused");
    await page.getByRole("button", { name: "Resume" }).click();
    await expect.poll(async () => page.getByTestId("monitor-status").textContent()).not.toContain("Paused");
    // The issue a failure opened is an ordinary issue page.
    await page.getByRole("link", { name: "Open issue" }).click();
    await page.waitForURL(/\/acme\/issues\/\d+/);
    expect(await page.locator("h1").first().textContent()).toContain("Cron failure: db-backup");
    await shoot(page, "monitor-issue");
    await page.close();
  });
});
