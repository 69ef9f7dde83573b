/**
 * Issue 31, items 4, 7 and 10 in Chromium, across the screens with controls:
 *  - a viewer and a member see only the controls their role allows (the permission table decides,
 *    through services().orgs.can) on the issue page, the stream and its bulk bar, project settings (general,
 *    grouping rules and their preview, keys, ownership), alerts (rules, channels), monitors,
 *    projects, and the top bar; the organization's settings are not theirs to open;
 *  - a refusal that happens anyway (the page was opened before the role was lowered) is said on
 *    the page, in the table's words, not swallowed;
 *  - create forms empty themselves after a success and a "✓" message does not outlive the next
 *    edit of its form;
 *  - the trend header counts in words ("1 event", not "1 events").
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, startServer, type TestServer } from "../test/helpers/server.js";
import { createTriageTenant, PASSWORD, sendEvent } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();

describe.skipIf(!canRun)("what each role sees, refusals said, forms that reset", () => {
  let server: TestServer;
  let browser: Browser;
  let adminToken: string;
  let issuePath: string;
  const users = new Map<string, string>();
  const at = (p: string) => `${server.url}/acme${p}`;

  async function signIn(email: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill(email);
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
    return page;
  }

  async function api(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${server.url}/api/0/organizations/acme${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** Invites `email` with `role` through the REST API and accepts it: a member who can sign in. */
  async function join(email: string, role: string): Promise<void> {
    const invited = await api("POST", "/members/", { email, role, sendInvite: false });
    expect(invited.status).toBe(201);
    const link = ((await invited.json()) as { inviteLink: string }).inviteLink;
    const accepted = await fetch(`${server.url}/api/invite/${link.split("/").at(-1)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: email.split("@")[0], password: PASSWORD }),
    });
    expect(accepted.status).toBe(200);
    const list = (await (await api("GET", "/members/")).json()) as Array<{ id: string; email: string }>;
    users.set(email, list.find((m) => m.email === email)?.id ?? "");
  }

  async function setRole(email: string, role: string): Promise<void> {
    const res = await api("PUT", `/members/${users.get(email)}/`, { orgRole: role });
    expect(res.status).toBe(200);
  }

  // A string names a control exactly ("Resolve" is not "Resolve options").
  const count = (page: Page, role: "button" | "link", name: string | RegExp) =>
    page.getByRole(role, { name, exact: typeof name === "string" }).count();

  beforeAll(async () => {
    server = await startServer();
    const tenant = await createTriageTenant(server, "acme", "web", "owner@example.com");
    adminToken = await server.cli(
      "token",
      "create",
      "--email",
      "owner@example.com",
      "--scopes",
      "member:read,member:write,org:read,event:read",
    );
    await sendEvent(server, tenant.dsn, { level: "error", message: "Checkout failed" });
    await join("viewer@example.com", "viewer");
    await join("member@example.com", "member");
    await join("admin@example.com", "admin");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    // The issue the event opened: its page is where the triage controls are.
    const owner = await signIn("owner@example.com");
    await owner.goto(at("/issues?query="));
    await owner.getByText("Checkout failed").first().waitFor();
    const href = await owner.locator('a[href*="/acme/issues/"]', { hasText: "Checkout failed" }).first().getAttribute("href");
    issuePath = new URL(href ?? "", server.url).pathname;
    await owner.context().close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const role of ["viewer", "member"] as const) {
    test(`a ${role} sees no control the role cannot use, on every screen`, async () => {
      const page = await signIn(`${role}@example.com`);
      // The issue page: triage is a member's, deleting an admin's.
      await page.goto(`${server.url}${issuePath}`);
      await page.getByTestId("issue-status").waitFor();
      expect(await count(page, "button", "Resolve")).toBe(role === "member" ? 1 : 0);
      expect(await count(page, "button", "Comment")).toBe(role === "member" ? 1 : 0);
      expect(await count(page, "button", /^Delete/)).toBe(0);
      // The trend header counts in words.
      expect(await page.getByRole("region", { name: "Trend" }).innerText()).toContain("1 event in the last 14 days");

      // The stream: a viewer selects nothing; a member's bulk bar triages but does not delete.
      await page.goto(at("/issues?query="));
      await page.getByText("Checkout failed").first().waitFor();
      const selectAll = page.getByRole("checkbox", { name: "Select all issues on this page" });
      if (role === "viewer") expect(await selectAll.count()).toBe(0);
      else {
        await selectAll.check();
        await page.getByRole("button", { name: "Assign", exact: true }).waitFor();
        expect(await count(page, "button", "Delete")).toBe(0);
      }

      // The top bar: the organization's settings are for those who may invite.
      expect(await page.locator("header").getByRole("link", { name: "Settings", exact: true }).count()).toBe(0);
      await page.goto(at("/settings/members"));
      expect(await count(page, "button", "Invite")).toBe(0);
      await page.goto(at("/settings/teams"));
      expect(await count(page, "button", "Create team")).toBe(0);
      await page.goto(at("/settings/tokens"));
      expect(await count(page, "button", "Create token")).toBe(0);
      await page.goto(at("/settings/sso"));
      expect(await count(page, "button", /^(Save|Remove)/)).toBe(0);
      // No organization settings are theirs: every section answers alike (import too), none is
      // offered, and the settings page says whose they are and where their own are.
      for (const section of ["members", "teams", "tokens", "sso", "import"]) {
        const res = await page.goto(at(`/settings/${section}`));
        expect(res?.status(), section).toBe(404);
        expect(await page.getByRole("navigation", { name: "Organization settings" }).count(), section).toBe(0);
      }
      const index = await page.goto(at("/settings"));
      expect(index?.status()).toBe(200);
      expect(await page.getByTestId("no-org-settings").innerText()).toContain(`your role here is ${role}`);
      expect(await page.getByTestId("no-org-settings").getByRole("link", { name: "your account page" }).getAttribute("href")).toBe(
        "/account",
      );

      // Projects and project settings: read-only, nothing to save, create or preview.
      await page.goto(at("/projects"));
      await page.getByRole("heading", { name: "Projects" }).waitFor();
      expect(await count(page, "link", "Create project")).toBe(0);
      await page.goto(at("/projects/web/settings"));
      await page.getByText(/settings are read-only for you/).waitFor();
      expect(await count(page, "button", "Save")).toBe(0);
      expect(await count(page, "button", /Preview on the last/)).toBe(0);
      await page.goto(at("/projects/web/settings/keys"));
      await page.getByText(/settings are read-only for you/).waitFor();
      for (const name of ["Create key", /^Rename/, /^Enable/]) expect(await count(page, "button", name)).toBe(0);
      await page.goto(at("/projects/web/settings/ownership"));
      await page.getByText(/settings are read-only for you/).waitFor();
      expect(await count(page, "button", "Save")).toBe(0);

      // Alerts: no rule or channel to add, pause, test or delete.
      await page.goto(at("/projects/web/settings/alerts"));
      await page.getByText(/settings are read-only for you/).waitFor();
      for (const name of ["Create rule", "Add channel", "Pause", "Delete", "Send a test", "Retry now"])
        expect(await count(page, "button", name)).toBe(0);
      expect(await count(page, "link", /^Edit rule/)).toBe(0);

      // Monitors: nothing to create.
      await page.goto(at("/monitors"));
      await page.getByRole("heading", { name: "Cron monitors" }).waitFor();
      expect(await page.locator("summary", { hasText: /New (cron|uptime)/ }).count()).toBe(0);
      expect(await count(page, "button", /^Create (monitor|check)/)).toBe(0);
      await page.context().close();
    });
  }

  test("an admin is offered the settings an admin may use: no import (owners only)", async () => {
    const page = await signIn("admin@example.com");
    await page.goto(at("/settings"));
    await page.waitForURL(/\/settings\/members$/);
    const tabs = page.getByRole("navigation", { name: "Organization settings" }).getByRole("link");
    expect(await tabs.allInnerTexts()).toEqual(["Members", "Teams", "Tokens", "Single sign-on"]);
    await page.context().close();
  });

  test("a refusal that happens anyway is said: a form opened by an admin, submitted after the role was lowered", async () => {
    const page = await signIn("admin@example.com");
    await page.goto(at("/projects/web/settings/alerts"));
    await page.locator("#channel-name").fill("#ops");
    await page.locator("#channel-url").fill("https://hooks.slack.com/services/T000/B000/XXXX");
    await setRole("admin@example.com", "member");
    await page.getByRole("button", { name: "Add channel" }).click();
    const refusal = page.getByTestId("new-channel").getByRole("alert");
    await refusal.waitFor();
    // The permission table's words: who is refused what, and the role it needs.
    expect(await refusal.innerText()).toMatch(/Not changed: A member cannot change alert rules and channels; that needs the admin role/);
    // Triage refused after the role went down to viewer: the toast says so.
    await setRole("admin@example.com", "admin");
    await page.goto(`${server.url}${issuePath}`);
    await page.getByRole("button", { name: "Resolve", exact: true }).waitFor();
    await setRole("admin@example.com", "viewer");
    await page.getByRole("button", { name: "Resolve", exact: true }).click();
    await page.getByText(/Could not resolve.*A viewer cannot resolve/).waitFor();
    await setRole("admin@example.com", "admin");
    await page.context().close();
  });

  test("create forms empty after a success; a ✓ goes as soon as its form is edited again", async () => {
    const page = await signIn("owner@example.com");
    const ok = (scope: ReturnType<Page["locator"]>) => scope.getByText(/^✓/);

    // a channel, then a rule sending to it: both forms empty afterwards
    await page.goto(at("/projects/web/settings/alerts"));
    await page.locator("#channel-name").fill("#oncall");
    await page.locator("#channel-url").fill("https://hooks.slack.com/services/T000/B000/YYYY");
    await page.getByRole("button", { name: "Add channel" }).click();
    const channelForm = page.getByTestId("new-channel");
    await ok(channelForm).waitFor();
    expect(await page.locator("#channel-name").inputValue()).toBe("");
    expect(await page.locator("#channel-url").inputValue()).toBe("");
    // typing again takes the ✓ away at once (it would otherwise stay five seconds)
    await page.locator("#channel-name").pressSequentially("#");
    await expect.poll(() => ok(channelForm).count(), { timeout: 1_500 }).toBe(0);

    const ruleForm = page.getByTestId("new-rule");
    await page.locator("#rule-name").fill("Checkout errors to on-call");
    await ruleForm.getByLabel(/#oncall/).check();
    await page.getByRole("button", { name: "Create rule" }).click();
    await ok(ruleForm).waitFor();
    expect(await page.locator("#rule-name").inputValue()).toBe("");
    expect(await ruleForm.getByLabel(/#oncall/).isChecked()).toBe(false);

    // a key: the label empties
    await page.goto(at("/projects/web/settings/keys"));
    await page.locator("#new-key-label").fill("mobile app");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByText("Key “mobile app” created.").waitFor();
    expect(await page.locator("#new-key-label").inputValue()).toBe("");

    // an invitation: the address empties, the role goes back to member
    await page.goto(at("/settings/members"));
    await page.getByLabel("Email", { exact: true }).fill("new@example.com");
    await page.getByLabel("Role", { exact: true }).selectOption("admin");
    await page.getByRole("button", { name: "Invite" }).click();
    await page.getByTestId("invite-link").waitFor();
    expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe("");
    expect(await page.getByLabel("Role", { exact: true }).inputValue()).toBe("member");

    // a team (the first takes every member), one taken out and added back: the ✓ Added goes
    // when the next form is used
    await page.goto(at("/settings/teams"));
    await page.getByLabel("Team name").fill("Checkout");
    await page.getByRole("button", { name: "Create team" }).click();
    await page.locator('[data-team="checkout"]').waitFor();
    expect(await page.getByLabel("Team name").inputValue()).toBe("");
    const team = page.locator('[data-team="checkout"]');
    for (const who of ["member", "viewer"]) {
      await team.getByRole("button", { name: `Remove ${who}@example.com from checkout` }).click();
      await team.getByRole("option", { name: `${who}@example.com` }).waitFor({ state: "attached" });
    }
    await team.getByRole("button", { name: "Add member" }).click();
    await team.getByText("✓ Added.").waitFor();
    // the issue's case: a removal right after, and "✓ Added" still beside the list
    await team.getByRole("button", { name: "Remove admin@example.com from checkout" }).click();
    await expect.poll(() => team.getByText("✓ Added.").count(), { timeout: 1_500 }).toBe(0);
    await page.context().close();
  });

  test("a channel to a loopback address is saved with a warning that names the setting, not a bare ✓", async () => {
    const page = await signIn("owner@example.com");
    await page.goto(at("/projects/web/settings/alerts"));
    await page.locator("#channel-kind").selectOption("webhook");
    await page.locator("#channel-name").fill("local receiver");
    await page.locator("#channel-url").fill("http://127.0.0.1:9/hook");
    await page.getByRole("button", { name: "Add channel" }).click();
    const warning = page.getByTestId("new-channel").getByTestId("form-warning");
    await warning.waitFor();
    expect(await warning.innerText()).toMatch(
      /Channel “local receiver” added\. Deliveries to this channel will be refused: 127\.0\.0\.1 is a loopback.*ALERTS_ALLOW_PRIVATE_WEBHOOKS=true.*ALERTS_WEBHOOK_ALLOW_HOSTS/s,
    );
    expect(await page.getByTestId("new-channel").getByText(/^✓/).count()).toBe(0);
    await page.context().close();
  });
});
