/**
 * Importing from Sentry on the settings page (issue 32), in real Chromium: an owner of one Errata
 * imports an organization from a second Errata started by the test (it speaks Sentry's API) — a
 * dry run first, then the real run — and watches the progress bar fed by the run row, then reads
 * the report. An admin is told the page is for owners; the token is stored nowhere.
 */

import type { Kysely } from "kysely";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Db, openDb } from "../src/storage/db.js";
import { writeTx } from "../src/storage/dialect.js";
import { findOrgBySlug, upsertMember } from "../src/storage/orgs/orgs.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, startServer, type TestServer } from "../test/helpers/server.js";
import { shoot } from "./helpers/screenshots.js";

const canRun = chromiumAvailable();
const PASSWORD = "a long test password 1";

describe.skipIf(!canRun)("import from Sentry in the browser", () => {
  let source: TestServer;
  let target: TestServer;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    [source, target] = await Promise.all([startServer(), startServer({ env: { IMPORT_ALLOW_PRIVATE: "true" } })]);
    await source.cli("user", "create", "--email", "owner@acme.test", "--password", PASSWORD, "--org", "acme");
    await source.cli("project", "create", "--org", "acme", "--name", "Web", "--platform", "node");
    await source.cli("project", "create", "--org", "acme", "--name", "Api", "--platform", "python");
    token = await source.cli(
      "token",
      "create",
      "--email",
      "owner@acme.test",
      "--scopes",
      "org:read,project:read,member:read,project:write",
    );
    const res = await fetch(`${source.url}/api/0/organizations/acme/releases/`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ version: "web@1.0.0", projects: ["web"] }),
    });
    expect(res.status).toBeLessThan(300);

    await target.cli("user", "create", "--email", "boss@here.test", "--password", PASSWORD, "--org", "here");
    // An admin of "here": made owner elsewhere, then given the admin role here.
    await target.cli("user", "create", "--email", "admin@here.test", "--password", PASSWORD, "--org", "elsewhere");
    const db = openDb(target.db.config);
    try {
      const k = db.kysely as unknown as Kysely<{ user: { id: string; email: string } }>;
      const admin = await k.selectFrom("user").select("id").where("email", "=", "admin@here.test").executeTakeFirstOrThrow();
      const here = await findOrgBySlug(db, "here");
      await writeTx(db, (tx) => upsertMember(tx, { orgId: here?.id ?? 0, userId: admin.id, role: "admin", now: Date.now() }));
    } finally {
      await db.close();
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([source?.stop(), target?.stop()]);
  });

  async function signIn(email: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${target.url}/login`);
    await page.getByLabel(/email/i).fill(email);
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
    return page;
  }

  async function runImport(page: Page, dryRun: boolean): Promise<void> {
    await page.goto(`${target.url}/here/settings/import`);
    await page.getByLabel("Sentry URL").fill(source.url);
    await page.getByLabel("Auth token").fill(token);
    await page.getByLabel("Organization slug on Sentry").fill("acme");
    if (dryRun) await page.getByLabel(/Dry run/).check();
    // The page shows the last run until a new one starts: wait for the new one's end.
    const previous = await page
      .getByTestId("import-run")
      .getAttribute("data-run", { timeout: 1000 })
      .catch(() => null);
    await page.getByRole("button", { name: "Import" }).click();
    const fresh = previous ? `:not([data-run="${previous}"])` : "";
    await page.locator(`[data-testid="import-run"]${fresh}`).waitFor();
    await page.locator(`[data-testid="import-run"][data-status="done"]${fresh}`).waitFor({ timeout: 60_000 });
  }

  test("an owner imports (dry run, then for real), sees the progress bar and the report; a second run changes nothing", async () => {
    const page = await signIn("boss@here.test");
    await page.goto(`${target.url}/here/settings`);
    await page.getByRole("link", { name: "Import from Sentry" }).click();
    await page.waitForURL(/\/here\/settings\/import$/);

    await runImport(page, true);
    await expect.poll(() => page.getByTestId("import-run").innerText()).toContain("Dry run finished: nothing was written");
    await page.goto(`${target.url}/here/projects`);
    expect(await page.getByText("web", { exact: true }).count()).toBe(0);

    await runImport(page, false);
    const run = page.getByTestId("import-run");
    expect(await run.innerText()).toContain("Import finished");
    expect(await page.getByTestId("import-progress").getAttribute("aria-valuenow")).toBe("100");
    const report = page.getByTestId("import-report");
    for (const row of [
      "project\tweb\tcreated",
      "project\tapi\tcreated",
      "release\tweb@1.0.0\tcreated",
      "member\towner@acme.test\tcreated",
    ]) {
      const [kind, name, action] = row.split("\t");
      await report.locator(`tr[data-action="${action}"]`, { hasText: name }).filter({ hasText: kind }).first().waitFor();
    }
    // The filter buttons narrow the table to one result.
    await page.getByTestId("import-filter-skipped").click();
    expect(await report.locator("tbody tr").count()).toBe(0);
    await page.getByTestId("import-filter-all").click();
    await page.setViewportSize({ width: 1280, height: 900 });
    await shoot(page, "import-sentry");

    // Again: everything unchanged, nothing duplicated.
    await runImport(page, false);
    await page.getByTestId("import-filter-created").click();
    expect(await page.getByTestId("import-report").locator("tbody tr").count()).toBe(0);
    await page.getByTestId("import-filter-unchanged").click();
    expect(await page.getByTestId("import-report").locator("tbody tr").count()).toBeGreaterThan(4);

    // A wrong token: the run fails with the catalogue's words, the bar says so.
    await page.goto(`${target.url}/here/settings/import`);
    await page.getByLabel("Sentry URL").fill(source.url);
    await page.getByLabel("Auth token").fill("sntryu_wrong");
    await page.getByLabel("Organization slug on Sentry").fill("acme");
    const last = await page.getByTestId("import-run").getAttribute("data-run");
    await page.getByRole("button", { name: "Import" }).click();
    await page.locator(`[data-testid="import-run"][data-status="failed"]:not([data-run="${last}"])`).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId("import-failure").innerText()).toMatch(/token/i);

    // The token is in no run row (nor anywhere in the table).
    const db: Db = openDb(target.db.config);
    try {
      const rows = await db.kysely.selectFrom("import_runs").selectAll().execute();
      expect(rows.length).toBe(4);
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(JSON.stringify(rows)).not.toContain("sntryu_wrong");
    } finally {
      await db.close();
    }
  }, 240_000);

  test("an admin is told the page is for owners", async () => {
    const page = await signIn("admin@here.test");
    await page.goto(`${target.url}/here/settings/import`);
    await page.getByTestId("import-owners-only").waitFor();
    expect(await page.getByTestId("import-form").count()).toBe(0);
  });
});
