/**
 * Projects and their settings in real Chromium against the real build: a project created through
 * the UI shows its DSN; keys are created, labelled, disabled and rotated, and ingest honours each
 * change at once; retention and scrubbing settings are saved, validated and read back; a viewer
 * sees the settings but none of their actions.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openDb } from "../src/storage/db.js";
import { findOrgBySlug, upsertMember } from "../src/storage/orgs/orgs.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, startServer, type TestServer } from "../test/helpers/server.js";

const canRun = chromiumAvailable();
const PASSWORD = "correct horse battery";
const DSN_RE = /http:\/\/[0-9a-f]{32}@127\.0\.0\.1:\d+\/\d+/;

/** One error event through the envelope endpoint with this DSN; the response status and error code. */
async function sendWith(dsn: string): Promise<{ status: number; code?: string }> {
  const u = new URL(dsn);
  const eventId = randomUUID().replace(/-/g, "");
  const body = `{"event_id":"${eventId}"}\n{"type":"event"}\n${JSON.stringify({ event_id: eventId, level: "error", message: "settings e2e" })}`;
  const res = await fetch(`${u.protocol}//${u.host}/api${u.pathname}/envelope/`, {
    method: "POST",
    headers: { "X-Sentry-Auth": `Sentry sentry_version=7, sentry_key=${u.username}, sentry_client=e2e/1.0` },
    body,
  });
  const json = (await res.json().catch(() => ({}))) as { code?: string };
  return { status: res.status, code: json.code };
}

async function signIn(browser: Browser, url: string, email: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${url}/login`);
  await page.getByLabel(/email/i).fill(email);
  await page.getByLabel(/password/i).fill(PASSWORD);
  await page.getByRole("button", { name: /sign in/i }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/login"));
  return page;
}

const keyRow = (page: Page, label: string, active: boolean) =>
  page.locator(`[data-testid="key-row"][data-key-label="${label}"][data-key-active="${active}"]`);

describe.skipIf(!canRun)("project settings in the browser", () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Page;
  const base = () => `${server.url}/acme/projects/storefront/settings`;

  beforeAll(async () => {
    server = await startServer();
    await server.cli("user", "create", "--email", "owner@example.com", "--password", PASSWORD, "--org", "acme");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    owner = await signIn(browser, server.url, "owner@example.com");
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("a project created through the UI shows its DSN and setup guide", async () => {
    await owner.goto(`${server.url}/acme/projects`);
    await owner.getByRole("link", { name: "Create project" }).click();
    await owner.getByLabel("Project name").fill("Storefront");
    await owner.getByText("React", { exact: true }).click();
    await owner.getByRole("button", { name: "Create project" }).click();
    await owner.waitForURL(/\/acme\/projects\/storefront\/settings\/setup/);
    const dsn = (await owner.getByTestId("project-dsn").locator("pre code").innerText()).trim();
    expect(dsn).toMatch(DSN_RE);
    expect(await owner.getByTestId("sdk-guide").getAttribute("data-guide")).toBe("react");
    expect(await owner.getByTestId("sdk-guide").innerText()).toContain(dsn);
    expect((await sendWith(dsn)).status).toBe(200);

    // The same name again is refused with the reason next to the field.
    await owner.goto(`${server.url}/acme/projects/new`);
    await owner.getByLabel("Project name").fill("storefront");
    await owner.getByRole("button", { name: "Create project" }).click();
    await expect.poll(() => owner.locator("#project-name-error").textContent()).toMatch(/already exists/);
  });

  test("keys: create, label, disable and rotate — ingest honours each change at once", async () => {
    await owner.goto(`${base()}/keys`);
    await owner.getByLabel("Label", { exact: true }).fill("CI");
    await owner.getByRole("button", { name: "Create key" }).click();
    await keyRow(owner, "CI", true).waitFor();

    await keyRow(owner, "CI", true).getByLabel("Label of key CI").fill("Build servers");
    await keyRow(owner, "CI", true).getByRole("button", { name: "Rename key CI" }).click();
    await keyRow(owner, "Build servers", true).waitFor();
    const buildDsn = (await keyRow(owner, "Build servers", true).locator("pre code").innerText()).trim();
    expect(buildDsn).toMatch(DSN_RE);
    expect((await sendWith(buildDsn)).status).toBe(200);

    // Disable: typed confirmation first.
    const danger = owner.getByTestId("key-danger-form");
    await danger.getByLabel("Key", { exact: true }).selectOption({ label: `Build servers — ${new URL(buildDsn).username.slice(0, 8)}…` });
    await danger.getByLabel(/Disable/).check();
    const disableButton = danger.getByRole("button", { name: "Disable key" });
    expect(await disableButton.isDisabled()).toBe(true);
    await danger.getByLabel(/to confirm/).fill("Build servers");
    await disableButton.click();
    await keyRow(owner, "Build servers", false).waitFor();
    expect(await sendWith(buildDsn)).toEqual({ status: 403, code: "project_disabled" });

    // Rotate the default key: a new DSN works, the old one is refused.
    const oldDsn = (await keyRow(owner, "Default", true).locator("pre code").innerText()).trim();
    await danger.getByLabel("Key", { exact: true }).selectOption({ label: `Default — ${new URL(oldDsn).username.slice(0, 8)}…` });
    await danger.getByLabel(/Rotate/).check();
    await danger.getByLabel(/to confirm/).fill("Default");
    await danger.getByRole("button", { name: "Rotate key" }).click();
    await keyRow(owner, "Default", false).waitFor();
    const newDsn = (await keyRow(owner, "Default", true).locator("pre code").innerText()).trim();
    expect(newDsn).not.toBe(oldDsn);
    expect(await sendWith(oldDsn)).toEqual({ status: 403, code: "project_disabled" });
    expect((await sendWith(newDsn)).status).toBe(200);
    expect(await danger.getByLabel(/to confirm/).inputValue()).toBe("");
  });

  test("retention and scrubbing settings are validated, saved and read back", async () => {
    await owner.goto(base());
    const retention = owner.getByTestId("retention-form");
    await retention.getByLabel(/Keep events for/).fill("0");
    await retention.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => retention.getByRole("alert").textContent()).toMatch(/Keep events for.*at least 1 day/);
    await retention.getByLabel(/Keep events for/).fill("30");
    await retention.getByLabel("Event cap").fill("5000");
    await retention.getByRole("button", { name: "Save" }).click();
    await retention.getByText("Saved.").waitFor();

    await owner.goto(`${base()}/scrubbing`);
    const scrubbing = owner.getByTestId("scrubbing-form");
    await scrubbing.getByLabel(/Remove IP addresses/).check();
    await scrubbing.getByLabel("Additional sensitive keys").fill("ssn\niban");
    await scrubbing.getByRole("button", { name: "Save" }).click();
    await scrubbing.getByText("Saved.").waitFor();

    await owner.reload();
    expect(await owner.getByLabel(/Remove IP addresses/).isChecked()).toBe(true);
    expect(await owner.getByLabel("Additional sensitive keys").inputValue()).toBe("ssn\niban");
    await owner.goto(base());
    expect(await owner.getByLabel(/Keep events for/).inputValue()).toBe("30");
    expect(await owner.getByLabel("Event cap").inputValue()).toBe("5000");
  });

  test("a viewer reads the settings but gets none of their actions", async () => {
    await server.cli("user", "create", "--email", "viewer@example.com", "--password", PASSWORD, "--org", "viewer-home");
    const db = openDb(server.db.config);
    try {
      const { rows } = await sql<{ id: string }>`select id from "user" where email = ${"viewer@example.com"}`.execute(db.kysely);
      const org = await findOrgBySlug(db, "acme");
      await db.kysely
        .transaction()
        .execute((tx) => upsertMember(tx, { orgId: org?.id ?? -1, userId: rows[0]?.id ?? "", role: "viewer", now: Date.now() }));
    } finally {
      await db.close();
    }
    const viewer = await signIn(browser, server.url, "viewer@example.com");
    await viewer.goto(`${base()}/keys`);
    await viewer.getByTestId("read-only-note").waitFor();
    expect(await viewer.locator("pre code").first().innerText()).toMatch(DSN_RE);
    expect(await viewer.getByRole("button", { name: /Create key|Disable key|Rotate key|Rename|Enable/ }).count()).toBe(0);
    expect(await viewer.getByTestId("key-danger-form").count()).toBe(0);

    await viewer.goto(base());
    expect(await viewer.getByLabel(/Keep events for/).inputValue()).toBe("30");
    expect(await viewer.getByLabel(/Keep events for/).isDisabled()).toBe(true);
    expect(await viewer.getByRole("button", { name: "Save" }).count()).toBe(0);

    await viewer.goto(`${server.url}/acme/projects`);
    await viewer.getByTestId("project-row").first().waitFor();
    expect(await viewer.getByRole("link", { name: "Create project" }).count()).toBe(0);
    await viewer.close();
  });
});
