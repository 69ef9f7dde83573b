/**
 * The monitor screens in Chromium: the list (status, schedule, timeline strip, next run), the
 * monitor page (environments with the open issue, durations chart, check-in list), mute and pause
 * through the page's buttons; an uptime check created through the list's form against a local
 * HTTP server, its page (state, availability, response-time chart, results), and no form for a
 * viewer. History is made with check-in envelopes sent at test-clock times and uptime checks run
 * as the test moves that clock (ERRATA_TEST_CLOCK_FILE). With ERRATA_SCREENSHOTS=1 it saves light
 * and dark screenshots to docs/screenshots/.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, startServer, type TestServer } from "../test/helpers/server.js";
import { tempDir } from "../test/helpers/test-db.js";
import { shoot } from "./helpers/screenshots.js";

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

  async function signIn(page: Page, email = "dev@example.com") {
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill(email);
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.getByRole("button", { name: /sign in|log in/i }).click();
    await page.waitForURL(/\/acme\//);
  }

  beforeAll(async () => {
    clockFile = path.join(tempDir(), "clock");
    fs.writeFileSync(clockFile, String(start));
    // The uptime target is on loopback: this installation allows private addresses.
    server = await startServer({
      env: { ERRATA_TEST_CLOCK_FILE: clockFile, MONITOR_TICK_MS: "200", UPTIME_TICK_MS: "200", UPTIME_ALLOW_PRIVATE: "true" },
    });
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
    // its next run (test clock) is behind the page's clock: "due … ago", not a bare "… ago" under "Next expected"
    expect(await report.locator("td").last().innerText()).toMatch(/^due \d+[mh] ago$/);
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
    // the page has a client form now (edit): click once it has hydrated, or the click is lost
    await page.waitForLoadState("networkidle");
    await page.getByRole("button", { name: "Mute" }).click();
    await expect.poll(async () => page.getByTestId("monitor-status").textContent()).toContain("muted");
    await page.waitForLoadState("networkidle");
    await page.getByRole("button", { name: "Pause" }).click();
    await expect.poll(async () => page.getByTestId("monitor-status").textContent()).toContain("Paused");
    await page.waitForLoadState("networkidle");
    await page.getByRole("button", { name: "Resume" }).click();
    await expect.poll(async () => page.getByTestId("monitor-status").textContent()).not.toContain("Paused");
    // The issue a failure opened is an ordinary issue page.
    await page.getByRole("link", { name: "Open issue" }).click();
    await page.waitForURL(/\/acme\/issues\/\d+/);
    expect(await page.locator("h1").first().textContent()).toContain("Cron failure: db-backup");
    await shoot(page, "monitor-issue");
    await page.close();
  });

  test("uptime: created through the form (a bad status range is refused inline), up with a chart, a failure in red; a viewer gets no form", async () => {
    let failing = false;
    let requests = 0;
    const seenHeaders: string[] = [];
    // The target's own varied delay gives the chart a shape; the test never sleeps.
    const target = http.createServer((req, res) => {
      requests++;
      seenHeaders.push(String(req.headers["x-check"]));
      setTimeout(
        () => (failing ? res.writeHead(500).end("broken") : res.writeHead(200).end("status: healthy")),
        5 + ((requests * 17) % 30),
      );
    });
    await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await signIn(page);
      await page.goto(`${server.url}/acme/monitors`);
      const form = page.getByTestId("uptime-create");
      if (!(await form.isVisible())) await page.locator("summary", { hasText: "New uptime check" }).click();
      await form.getByLabel("Name", { exact: true }).fill("Health endpoint");
      await form.getByLabel("URL").fill(url);
      await form.getByLabel("Every (s)").fill("30");
      await form.getByLabel("Lowest expected status").fill("500");
      await form.getByLabel("Highest expected status").fill("200");
      await form.getByLabel(/Body contains/).fill("healthy");
      await form.getByLabel("Down after").fill("2");
      await form.getByLabel(/Request headers/).fill("X-Check: errata");
      await form.getByRole("button", { name: "Create check" }).click();
      // Refused by the service, shown by the field, the typed values kept.
      await form.getByText("Expected status range must be 100–599, min ≤ max.").waitFor();
      expect(await form.getByLabel("Lowest expected status").getAttribute("aria-invalid")).toBe("true");
      expect(await form.getByLabel("Name", { exact: true }).inputValue()).toBe("Health endpoint");
      await form.getByLabel("Lowest expected status").fill("200");
      await form.getByLabel("Highest expected status").fill("299");
      // The first check is due once the test clock reaches the creation time.
      fs.writeFileSync(clockFile, String(Date.now() + 60_000));
      await form.getByRole("button", { name: "Create check" }).click();
      await page.waitForURL(/\/acme\/monitors\/uptime\/\d+$/);
      const id = Number(new URL(page.url()).pathname.split("/").at(-1));
      // A pending check's page refreshes itself until the first result.
      await expect.poll(() => page.getByTestId("uptime-state").textContent(), { timeout: 20_000 }).toContain("Up");
      expect(seenHeaders[0]).toBe("errata");

      const last = async () => {
        const res = await fetch(`${server.url}/api/0/organizations/acme/uptime/`, { headers: { authorization: `Bearer ${token}` } });
        const list = (await res.json()) as Array<{ id: number; last: { checkedAt: number } | null }>;
        return list.find((m) => m.id === id)?.last?.checkedAt ?? 0;
      };
      // Seven more checks, one interval apart on the test clock; the third fails (one failure stays up).
      for (let i = 0; i < 7; i++) {
        failing = i === 2;
        const at = Number(fs.readFileSync(clockFile, "utf8")) + 31_000;
        fs.writeFileSync(clockFile, String(at));
        await eventually(async () => (await last()) === at, 20_000, `uptime check ${i + 2} at ${at}`);
      }
      await page.reload();
      expect(await page.getByTestId("uptime-state").textContent()).toContain("Up");
      expect(await page.getByRole("img", { name: /^Response times, last 24 h: 8 checks, 1 failed/ }).count()).toBe(1);
      expect(await page.getByTestId("uptime-chart").locator("[data-failed]").count()).toBe(1);
      const rows = page.getByTestId("uptime-results").locator("tbody tr");
      expect(await rows.count()).toBe(8);
      expect(await rows.nth(4).textContent()).toContain("status 500 outside 200–299");
      expect(await page.getByTestId("uptime-availability").textContent()).toContain("87.50 %");
      expect(await page.getByRole("link", { name: "Open issue" }).count()).toBe(0);

      // The list links the check to its page.
      await page.goto(`${server.url}/acme/monitors`);
      await page.getByTestId("uptime-list").getByRole("link", { name: "Health endpoint" }).click();
      await page.waitForURL(new RegExp(`/acme/monitors/uptime/${id}$`));

      // A viewer reads the check but has nothing to create one with.
      const admin = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "member:write");
      const invited = await fetch(`${server.url}/api/0/organizations/acme/members/`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ email: "uptime-viewer@example.com", role: "viewer", sendInvite: false }),
      });
      const link = ((await invited.json()) as { inviteLink: string }).inviteLink;
      const accepted = await fetch(`${server.url}/api/invite/${link.split("/").at(-1)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Vic Viewer", password: PASSWORD }),
      });
      expect(accepted.status).toBe(200);
      const viewer = await (await browser.newContext()).newPage();
      await signIn(viewer, "uptime-viewer@example.com");
      await viewer.goto(`${server.url}/acme/monitors`);
      await viewer.getByTestId("uptime-list").getByRole("link", { name: "Health endpoint" }).waitFor();
      expect(await viewer.locator("summary", { hasText: "New uptime check" }).count()).toBe(0);
      expect(await viewer.getByTestId("uptime-create").count()).toBe(0);
      await viewer.goto(`${server.url}/acme/monitors/uptime/${id}`);
      expect(await viewer.getByTestId("uptime-state").textContent()).toContain("Up");
      await viewer.context().close();
    } finally {
      await page.close();
      await new Promise((r) => target.close(r));
    }
  });

  test("a cron monitor created and edited in the form: next runs previewed, the sentry-cli line; an ok check-in is green; a member gets no controls", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await signIn(page);
    await page.goto(`${server.url}/acme/monitors`);
    await page.waitForLoadState("networkidle");
    await page.locator("summary", { hasText: "New cron monitor" }).click();
    const form = page.getByTestId("monitor-create");
    await form.getByLabel("Name").fill("Nightly export");
    await form.getByLabel("Project").selectOption("jobs");
    await form.getByRole("textbox", { name: "Crontab" }).fill("61 * * * *");
    await expect.poll(() => form.getByTestId("monitor-create-preview").innerText()).toContain("Not a valid crontab");
    await form.getByRole("textbox", { name: "Crontab" }).fill("30 2 * * *");
    await form.getByLabel("Timezone").fill("Europe/Paris");
    const preview = form.getByTestId("monitor-create-preview");
    await expect.poll(() => preview.innerText()).toContain("Next runs (Europe/Paris)");
    expect(await preview.locator("li").count()).toBe(5);
    expect(await preview.locator("li").first().innerText()).toMatch(/02:30$/);
    await form.getByLabel("Check-in margin (min)").fill("7");
    await form.getByLabel("Max runtime (min)").fill("45");
    await form.getByLabel("Issue after (failures)").fill("2");
    await form.getByLabel("Environment (for the command below)").fill("staging");
    expect(await form.locator("pre").innerText()).toContain("sentry-cli monitors run -e staging nightly-export -- <your command>");
    await shoot(page, "monitor-create-form");
    await form.getByRole("button", { name: "Create monitor" }).click();
    await page.waitForURL(/\/acme\/monitors\/nightly-export$/);
    const config = page.getByRole("region", { name: "Configuration" });
    expect(await config.innerText()).toMatch(/30 2 \* \* \*[\s\S]*Europe\/Paris[\s\S]*7 min[\s\S]*45 min[\s\S]*2 failures in a row/);
    expect(await page.locator("pre").first().innerText()).toContain("sentry-cli monitors run -e production nightly-export");

    // edit: an interval instead, previewed from now
    await page.getByRole("link", { name: "Edit monitor" }).click();
    await page.waitForURL(/\/acme\/monitors\/nightly-export\/edit$/);
    await page.waitForLoadState("networkidle");
    const edit = page.getByTestId("monitor-edit");
    await edit.getByLabel("Interval").check();
    await edit.getByLabel("Every").fill("15");
    await edit.getByLabel("Unit").selectOption("minute");
    await expect
      .poll(() => edit.getByTestId("monitor-edit-preview").innerText())
      .toContain("Expected every 15 minutes after each check-in");
    await edit.getByRole("button", { name: "Save monitor" }).click();
    await expect.poll(() => edit.innerText()).toContain("Saved.");
    await page.goto(`${server.url}/acme/monitors/nightly-export`);
    await expect.poll(() => config.innerText()).toContain("every 15 minutes");
    expect(await config.innerText()).toContain("7 min");

    // an ok check-in shows a green dot
    await run("nightly-export", start + 22 * 60 * MIN, "ok", 3);
    await page.reload();
    const dot = page.getByTestId("checkin-list").locator('[data-status="ok"]').first();
    expect(await dot.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(47, 158, 91)");

    // a member reads the monitor with no Mute, Pause or Edit to click
    const admin = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "member:write");
    const invited = await fetch(`${server.url}/api/0/organizations/acme/members/`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "cron-member@example.com", role: "member", sendInvite: false }),
    });
    const link = ((await invited.json()) as { inviteLink: string }).inviteLink;
    const accepted = await fetch(`${server.url}/api/invite/${link.split("/").at(-1)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Mo Member", password: PASSWORD }),
    });
    expect(accepted.status).toBe(200);
    const member = await (await browser.newContext()).newPage();
    await signIn(member, "cron-member@example.com");
    await member.goto(`${server.url}/acme/monitors/nightly-export`);
    await member.getByTestId("monitor-status").waitFor();
    for (const name of ["Mute", "Pause"]) expect(await member.getByRole("button", { name }).count()).toBe(0);
    expect(await member.getByRole("link", { name: "Edit monitor" }).count()).toBe(0);
    await member.goto(`${server.url}/acme/monitors`);
    expect(await member.locator("summary", { hasText: "New cron monitor" }).count()).toBe(0);
    await member.context().close();
    await page.close();
  });
});
