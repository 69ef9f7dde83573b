/**
 * Ownership in real Chromium against the real build: the project's ownership settings refuse a
 * bad line and an unknown team with the line named, then save; a new issue in
 * src/checkout/pay.js shows its suggested assignees with the matching rule, the suspect commit of
 * its release with the author (a member), and the activity "by ownership rule …". A pasted
 * CODEOWNERS file lists its unmatched names, one is mapped to a team with its select; the project's
 * GitHub tracker gives the issue page a prefilled "Create issue" link, and an existing issue linked
 * there shows on the page and in the stream row. Screenshots of the screens (SCREENSHOTS=1).
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { SCREENSHOTS, shoot } from "./helpers/screenshots.js";

const canRun = chromiumAvailable();
const PASSWORD = "correct horse battery";

describe.skipIf(!canRun)("ownership in the browser", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  let ingest: string;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
  };

  beforeAll(async () => {
    server = await startServer();
    await server.cli("user", "create", "--email", "owner@example.com", "--password", PASSWORD, "--org", "acme", "--name", "Olive Owner");
    await server.cli("user", "create", "--email", "pat@example.com", "--password", PASSWORD, "--org", "acme", "--name", "Pat Payments");
    const dsn = (await server.cli("project", "create", "--org", "acme", "--name", "shop", "--platform", "node")).split("\n").pop() ?? "";
    const [, key, projectId] = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn) as RegExpExecArray;
    ingest = `${server.url}/api/${projectId}/envelope/?sentry_key=${key}`;
    token = await server.cli(
      "token",
      "create",
      "--email",
      "owner@example.com",
      "--scopes",
      "org:read,project:read,project:write,project:releases,event:read",
    );
    expect((await api("POST", "/api/0/organizations/acme/teams/", { name: "Payments" })).status).toBe(201);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill("owner@example.com");
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
    // Generous: on the shared two-core machine a cold server and browser can take minutes.
  }, 420_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("settings: line errors, then saved", async () => {
    await page.goto(`${server.url}/acme/projects/shop/settings/ownership`);
    const rules = page.locator("textarea#raw");
    await rules.fill("path:*/checkout/* #payments\nfile:src/x.js #payments\nurl:*/admin/* #ghosts");
    await page.getByTestId("ownership-form").getByRole("button", { name: "Save" }).click();
    await expect
      .poll(async () => page.getByTestId("ownership-form").getByRole("alert").first().innerText(), { timeout: 30_000 })
      .toContain("Line 2");
    await rules.fill("# Checkout belongs to payments\npath:*/src/** pat@example.com\npath:*/checkout/* #payments\nurl:*/admin/* #ghosts");
    await page.getByTestId("ownership-form").getByRole("button", { name: "Save" }).click();
    await expect
      .poll(async () => page.getByTestId("ownership-form").getByRole("alert").first().innerText(), { timeout: 30_000 })
      .toMatch(/Line 4.*#ghosts/s);
    await rules.fill(
      "# Checkout belongs to payments\npath:*/src/** pat@example.com\npath:*/checkout/* #payments\ntags.region:eu-* #payments",
    );
    await page.getByTestId("ownership-form").getByRole("button", { name: "Save" }).click();
    await expect.poll(async () => page.getByText("✓ Saved.").count(), { timeout: 30_000 }).toBe(1);
    const saved = await api("GET", "/api/0/projects/acme/shop/ownership/");
    expect(saved.body.raw).toContain("path:*/checkout/* #payments");
    await page.reload();
    await shoot(page, "ownership-settings");
  });

  test("issue page: suggested assignees with the rule, suspect commit and its author, activity", async () => {
    const sha = "9c1e4f2a0b7d3a6f8e9c2b1a0d4e5f6a7b8c9d0e";
    await api("POST", "/api/0/organizations/acme/releases/", {
      version: "shop@2.4.0",
      projects: ["shop"],
      commits: [
        {
          id: sha,
          repository: "acme/shop",
          message: "Round card amounts to cents before charging",
          author_name: "Pat Payments",
          author_email: "pat@example.com",
          timestamp: new Date(Date.now() - 3 * 3600_000).toISOString(),
          patch_set: [{ path: "src/checkout/pay.js", type: "M" }],
        },
      ],
    });
    const eventId = randomUUID().replace(/-/g, "");
    const event = {
      event_id: eventId,
      platform: "node",
      level: "error",
      release: "shop@2.4.0",
      environment: "production",
      exception: {
        values: [
          {
            type: "CardDeclined",
            value: "amount 10.005 is not a valid charge",
            stacktrace: {
              frames: [
                { filename: "/srv/shop/src/server.js", function: "handle", lineno: 40, in_app: true },
                { filename: "/srv/shop/src/checkout/pay.js", function: "charge", lineno: 12, in_app: true },
              ],
            },
          },
        ],
      },
    };
    expect(
      (await fetch(ingest, { method: "POST", body: `{"event_id":"${eventId}"}\n{"type":"event"}\n${JSON.stringify(event)}` })).status,
    ).toBe(200);
    const issue = await eventually(
      async () => {
        const list = (await api("GET", "/api/0/projects/acme/shop/issues/?query=")).body as unknown as Array<Record<string, unknown>>;
        return list?.find((i) => String(i.title).startsWith("CardDeclined"));
      },
      30_000,
      "the issue",
    );
    await page.goto(`${server.url}/acme/issues/${issue.id}`);
    const owners = page.getByTestId("issue-owners");
    await expect.poll(async () => owners.innerText(), { timeout: 30_000 }).toContain("#payments");
    expect(await owners.innerText()).toContain("path:*/checkout/* #payments");
    expect(await owners.innerText()).toContain("Pat Payments");
    const suspect = await page.getByTestId("suspect-commits").innerText();
    expect(suspect).toContain("Round card amounts to cents");
    expect(suspect).toContain("Pat Payments");
    expect(suspect).toContain("9c1e4f2a0b7d");
    expect(await page.locator("#activity").innerText()).toContain("by ownership rule path:*/checkout/* #payments");
    await shoot(page, "issue-ownership");
  });

  test("no rule matches: the owners box lists the frame paths tried and a path rule that would match", async () => {
    const eventId = randomUUID().replace(/-/g, "");
    const event = {
      event_id: eventId,
      platform: "node",
      level: "error",
      exception: {
        values: [
          {
            type: "RefundRefused",
            value: "refund window closed",
            stacktrace: {
              frames: [
                { filename: "node:internal/process/task_queues", function: "run", in_app: false },
                {
                  filename: "/srv/shop/lib/orders/refund.mjs",
                  abs_path: "/srv/shop/lib/orders/refund.mjs",
                  function: "refund",
                  in_app: true,
                },
              ],
            },
          },
        ],
      },
    };
    expect(
      (await fetch(ingest, { method: "POST", body: `{"event_id":"${eventId}"}\n{"type":"event"}\n${JSON.stringify(event)}` })).status,
    ).toBe(200);
    const issue = await eventually(
      async () => {
        const list = (await api("GET", "/api/0/projects/acme/shop/issues/?query=")).body as unknown as Array<Record<string, unknown>>;
        return list?.find((i) => String(i.title).startsWith("RefundRefused"));
      },
      30_000,
      "the issue",
    );
    await page.goto(`${server.url}/acme/issues/${issue.id}`);
    const none = page.getByTestId("owners-none");
    await expect.poll(async () => none.innerText(), { timeout: 30_000 }).toContain("No ownership rule matches");
    expect(await page.getByTestId("owners-tried").innerText()).toMatch(/\/srv\/shop\/lib\/orders\/refund\.mjs\s+node:internal/);
    expect(await page.getByTestId("owners-suggestion").innerText()).toContain("path:lib/orders/* #team");
    // The suggestion really matches: saved as a rule, the next event of the issue finds its owner.
    const saved = await api("PUT", "/api/0/projects/acme/shop/ownership/", {
      raw: "# Checkout belongs to payments\npath:*/src/** pat@example.com\npath:*/checkout/* #payments\ntags.region:eu-* #payments\npath:lib/orders/* #payments",
    });
    expect(saved.status).toBe(200);
    await page.reload();
    await expect
      .poll(async () => page.getByTestId("issue-owners").innerText(), { timeout: 30_000 })
      .toContain("path:lib/orders/* #payments");
  });

  test("CODEOWNERS: pasted, unmatched names listed, one mapped to a team", async () => {
    await page.goto(`${server.url}/acme/projects/shop/settings/ownership`);
    await page
      .locator("textarea#codeowners")
      .fill("# GitHub syntax\n*.css @pat\n/src/checkout/ @acme/payments\n[Docs]\ndocs/ ghost@example.com");
    await page.getByTestId("codeowners-form").getByRole("button", { name: "Save" }).click();
    await expect
      .poll(async () => page.getByTestId("codeowners-form").innerText(), { timeout: 30_000 })
      .toContain("3 names have no team or member yet");
    await page.reload();
    await expect.poll(async () => page.getByTestId("codeowners-summary").innerText(), { timeout: 30_000 }).toBe("3 unmatched of 3.");
    expect(await page.getByTestId("codeowners-unknown-emails").innerText()).toContain("ghost@example.com");
    const row = page.locator('[data-testid="codeowners-name"][data-name="@acme/payments"]');
    await row.getByRole("combobox").selectOption("team:payments");
    await row.getByRole("button", { name: /Save mapping/ }).click();
    await expect.poll(async () => row.innerText(), { timeout: 30_000 }).toContain("@acme/payments → #payments");
    await page.reload();
    await expect.poll(async () => page.getByTestId("codeowners-summary").innerText(), { timeout: 30_000 }).toBe("2 unmatched of 3.");
    const listed = await api("GET", "/api/0/projects/acme/shop/codeowners/");
    // the mapping's Save scrolled the page; reloads keep the scroll and the sticky header would land mid-shot
    await page.evaluate(() => window.scrollTo(0, 0));
    expect(listed.body).toMatchObject([
      { errors: { missing_external_teams: [], missing_external_users: ["@pat"], missing_user_emails: ["ghost@example.com"] } },
    ]);
    await shoot(page, "ownership-codeowners");
  });

  test("trackers: a prefilled Create issue link; an existing issue linked, shown in the stream, removed", async () => {
    await page.goto(`${server.url}/acme/projects/shop/settings/ownership#trackers`);
    await page.locator("input#github").fill("https://github.com/acme/shop");
    await page.getByTestId("trackers-form").getByRole("button", { name: "Save" }).click();
    await expect.poll(async () => page.getByTestId("trackers-form").innerText(), { timeout: 30_000 }).toContain("Saved.");
    const list = (await api("GET", "/api/0/projects/acme/shop/issues/?query=")).body as unknown as Array<Record<string, unknown>>;
    const issue = list.find((i) => String(i.title).startsWith("CardDeclined")) as Record<string, unknown>;
    await page.goto(`${server.url}/acme/issues/${issue.id}`);
    const panel = page.getByTestId("issue-trackers");
    const href = (await panel.locator('a[data-tracker="github"]').getAttribute("href")) ?? "";
    const url = new URL(href);
    expect(url.origin + url.pathname).toBe("https://github.com/acme/shop/issues/new");
    expect(url.searchParams.get("title")).toMatch(/^SHOP-\d+: CardDeclined: amount 10\.005 is not a valid charge$/);
    expect(url.searchParams.get("body")).toContain(`${server.url}/acme/issues/${issue.id}`);
    expect(url.searchParams.get("body")).toContain("at charge (/srv/shop/src/checkout/pay.js:12)");

    await panel.getByLabel("Link an existing issue (URL)").fill("ftp://example.com/1");
    await panel.getByRole("button", { name: "Link issue" }).click();
    await expect.poll(async () => panel.getByRole("alert").innerText(), { timeout: 30_000 }).toContain("http(s)");
    await panel.getByLabel("Link an existing issue (URL)").fill("https://github.com/acme/shop/issues/42");
    await panel.getByRole("button", { name: "Link issue" }).click();
    await expect.poll(async () => panel.getByTestId("linked-issue").innerText(), { timeout: 30_000 }).toContain("acme/shop#42");
    await shoot(page, "issue-trackers");

    await page.goto(`${server.url}/acme/issues`);
    await expect
      .poll(async () => page.getByTestId("row-linked-issue").first().getAttribute("href"), { timeout: 30_000 })
      .toBe("https://github.com/acme/shop/issues/42");

    await page.goto(`${server.url}/acme/issues/${issue.id}`);
    await page.getByRole("button", { name: "Remove the linked issue" }).click();
    await expect.poll(async () => page.getByTestId("linked-issue").count(), { timeout: 30_000 }).toBe(0);
  });

  test("alert rule form: email the issue owners with a fallthrough, stored as Sentry's NotifyEmailAction", async () => {
    await page.goto(`${server.url}/acme/projects/shop/settings/alerts`);
    const form = page.getByTestId("new-rule");
    await form.getByLabel("Name").fill("Checkout owners");
    const owners = form.getByTestId("target-issue_owners");
    await owners.getByRole("checkbox").check();
    await owners.getByRole("combobox").selectOption("no_one");
    await form.getByRole("button", { name: "Create rule" }).click();
    const row = page.locator('[data-testid="rule-row"][data-rule-name="Checkout owners"]');
    await row.waitFor({ timeout: 30_000 });
    expect(await row.innerText()).toContain("Issue owners (or no one)");
    const rules = (await api("GET", "/api/0/projects/acme/shop/rules/")).body as unknown as Array<Record<string, unknown>>;
    expect(rules.find((r) => r.name === "Checkout owners")?.actions).toEqual([
      { id: "sentry.mail.actions.NotifyEmailAction", targetType: "IssueOwners", targetIdentifier: "", fallthroughType: "NoOne" },
    ]);
    await page.getByRole("heading", { name: "New rule" }).evaluate((el) => el.scrollIntoView({ block: "start" }));
    await page.evaluate(() => window.scrollBy(0, 560));
    if (SCREENSHOTS)
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await page.screenshot({ path: path.join(ROOT, "docs", "screenshots", `alerts-owner-targets-${theme}.png`) });
      }
    await page.emulateMedia({ colorScheme: "light" });
  });

  test("account page: the weekly summary can be turned off and on", async () => {
    await page.goto(`${server.url}/account#weekly-summary`);
    // This server has no SMTP_HOST: the switch says so instead of promising mail.
    expect(await page.getByTestId("weekly-summary-no-mail").innerText()).toContain("Mail is not set up on this Errata");
    const form = page.getByTestId("weekly-summary-form");
    const box = form.getByRole("checkbox", { name: "Send me the weekly summary" });
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await form.getByRole("button", { name: "Save" }).click();
    await expect.poll(async () => form.innerText(), { timeout: 30_000 }).toContain("No more weekly summaries.");
    await page.reload();
    expect(await page.getByTestId("weekly-summary-form").getByRole("checkbox").isChecked()).toBe(false);
    await page.getByTestId("weekly-summary-form").getByRole("checkbox").check();
    await page.getByTestId("weekly-summary-form").getByRole("button", { name: "Save" }).click();
    await expect
      .poll(async () => page.getByTestId("weekly-summary-form").innerText(), { timeout: 30_000 })
      .toContain("You will get the weekly summary.");
  });
});
