import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, startServer, type TestServer } from "../test/helpers/server.js";
import { type SmtpInbox, startSmtpInbox } from "../test/helpers/smtp-inbox.js";
import { shoot } from "./helpers/screenshots.js";
import { createTriageTenant, PASSWORD, sendEvent } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();
const NEW_PASSWORD = "a long enough password";

describe.skipIf(!canRun)("members and invitations in the browser", () => {
  let smtp: SmtpInbox;
  let server: TestServer;
  let browser: Browser;
  let owner: Page;
  const members = () => `${server.url}/acme/settings/members`;

  beforeAll(async () => {
    smtp = await startSmtpInbox();
    server = await startServer({ env: smtp.env });
    const tenant = await createTriageTenant(server, "acme", "web", "owner@example.com");
    await sendEvent(server, tenant.dsn, { level: "error", message: "Checkout failed" });
    const apiDsn = await server.cli("project", "create", "--org", "acme", "--name", "api", "--platform", "node");
    await sendEvent(server, apiDsn, { level: "error", message: "API timeout" });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    owner = await signIn("owner@example.com", PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  async function signIn(email: string, password: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill(email);
    await page.getByLabel(/password/i).fill(password);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
    return page;
  }

  async function invite(email: string, role: string, byMail: boolean): Promise<string> {
    await owner.goto(members());
    await owner.getByLabel("Email", { exact: true }).fill(email);
    await owner.getByLabel("Role", { exact: true }).selectOption(role);
    const send = owner.getByLabel(/Send the invitation by email/);
    if (!byMail) await send.uncheck();
    await owner.getByRole("button", { name: "Invite" }).click();
    const link = (await owner.getByTestId("invite-link").locator("code").innerText()).trim();
    expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{40,}$/);
    return link;
  }

  /** A fresh browser follows the link, picks a name and password, and lands in the org. */
  async function accept(link: string, name: string, shot?: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(link);
    if (shot) await shoot(page, shot);
    await page.getByLabel("Your name").fill(name);
    await page.getByLabel("Password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Create account and join" }).click();
    await page.waitForURL(/\/acme\/issues/);
    return page;
  }

  test("the owner makes teams: the first takes everything, the api project moves to Backend", async () => {
    await owner.goto(`${server.url}/acme/settings/teams`);
    for (const name of ["Frontend", "Backend"]) {
      await owner.getByLabel("Team name").fill(name);
      await owner.getByRole("button", { name: "Create team" }).click();
      await owner.locator(`[data-team="${name.toLowerCase()}"]`).waitFor();
      // the form empties after a success (its value would invite a duplicate) and the ✓ fades
      await expect.poll(() => owner.getByLabel("Team name").inputValue()).toBe("");
    }
    await expect.poll(() => owner.getByText(/^✓/).count(), { timeout: 15_000 }).toBe(0);
    const frontend = owner.locator('[data-team="frontend"]');
    await eventually(async () => (await frontend.getByTestId("team-project").count()) === 2, 20_000, "frontend has both projects");
    await frontend.getByRole("button", { name: "Remove api from frontend" }).click();
    await eventually(async () => (await frontend.getByTestId("team-project").count()) === 1, 20_000, "api left frontend");
    const backend = owner.locator('[data-team="backend"]');
    await backend.getByLabel("Add a project to backend").selectOption("api");
    await backend.getByRole("button", { name: "Add project" }).click();
    await eventually(async () => (await backend.getByTestId("team-project").count()) === 1, 20_000, "api in backend");
    await shoot(owner, "teams");
    // the create-project form chooses its teams: Backend only, not the default Frontend
    await owner.goto(`${server.url}/acme/projects/new`);
    const teams = owner.getByTestId("project-teams");
    expect(await teams.getByLabel("Frontend").isChecked()).toBe(true);
    await teams.getByLabel("Frontend").uncheck();
    await teams.getByLabel("Backend").check();
    await owner.getByLabel("Project name").fill("worker");
    await owner.getByRole("button", { name: "Create project" }).click();
    await owner.waitForURL(/\/acme\/projects\/worker\/settings\/setup/);
    await owner.goto(`${server.url}/acme/settings/teams`);
    await expect
      .poll(() => backend.getByTestId("team-project").allInnerTexts())
      .toEqual([expect.stringContaining("api"), expect.stringContaining("worker")]);
    expect((await frontend.getByTestId("team-project").allInnerTexts()).join(" ")).not.toContain("worker");
    await owner.goto(`${server.url}/account`);
    await owner.getByTestId("session-row").first().waitFor();
    await shoot(owner, "account");
    // An organization token for CI: shown once, in Sentry's org-token form.
    await owner.goto(`${server.url}/acme/settings/tokens`);
    await owner.getByLabel("Name").fill("CI uploads");
    await owner.getByRole("button", { name: "Create token" }).click();
    expect((await owner.getByTestId("token-secret").locator("code").innerText()).trim()).toMatch(/^sntrys_/);
    await shoot(owner, "tokens");
  });

  test("a member invited by link accepts, sees only their team's projects, resolves an issue, and cannot open settings", async () => {
    const link = await invite("member@example.com", "member", false);
    await shoot(owner, "members");
    const member = await accept(link, "Mia Member", "invite");
    await member
      .getByRole("link", { name: /Checkout failed/ })
      .first()
      .waitFor();
    expect(await member.getByRole("link", { name: /API timeout/ }).count()).toBe(0);
    await member.goto(`${server.url}/acme/projects`);
    expect(await member.getByText("api", { exact: true }).count()).toBe(0);
    await member.goto(`${server.url}/acme/issues`);
    await member
      .getByRole("link", { name: /Checkout failed/ })
      .first()
      .click();
    await member.getByRole("button", { name: "Resolve", exact: true }).click();
    await eventually(async () => (await member.getByTestId("issue-status").innerText()).startsWith("resolved"), 20_000, "resolved");
    expect(await member.getByRole("link", { name: "Settings" }).count()).toBe(0);
    const res = await member.goto(members());
    expect(res?.status()).toBe(404);
    // The link worked once.
    const again = await (await browser.newContext()).newPage();
    await again.goto(link);
    expect(await again.getByRole("heading", { level: 1 }).innerText()).toMatch(/no longer works/);
    await shoot(again, "invite-invalid");
    await again.close();
    await member.context().close();
  });

  test("an admin invited by email follows the mailed link and can open settings", async () => {
    await invite("admin@example.com", "admin", true);
    const mail = await eventually(async () => smtp.mails.find((m) => m.text?.includes("/invite/")), 20_000, "invitation mail");
    expect(mail.subject).toContain("acme");
    const link = mail.text?.match(/(http:\/\/\S+\/invite\/\S+)/)?.[1] as string;
    const admin = await accept(link, "Ada Admin");
    // Admins see every project, whatever their teams.
    await admin
      .getByRole("link", { name: /API timeout/ })
      .first()
      .waitFor();
    await admin.getByRole("link", { name: "Settings" }).click();
    await admin.waitForURL(/\/acme\/settings\/members/);
    expect(await admin.getByTestId("member-row").count()).toBe(3);
    // Admins invite, but neither change roles nor invite owners.
    expect(await admin.getByRole("option", { name: "owner" }).count()).toBe(0);
    await admin.context().close();
  });

  test("a viewer sees no mutation controls", async () => {
    const link = await invite("viewer@example.com", "viewer", false);
    const viewer = await accept(link, "Vic Viewer");
    // The member resolved the web issue: list resolved ones.
    await viewer.goto(`${server.url}/acme/issues?query=${encodeURIComponent("is:resolved")}`);
    await viewer
      .getByRole("link", { name: /Checkout failed/ })
      .first()
      .waitFor();
    expect(await viewer.getByRole("checkbox").count()).toBe(0);
    await shoot(viewer, "issues-viewer");
    await viewer
      .getByRole("link", { name: /Checkout failed/ })
      .first()
      .click();
    await viewer.getByTestId("issue-status").waitFor();
    for (const name of ["Resolve", "Unresolve", "Assign", "Merge…", "Delete"])
      expect(await viewer.getByRole("button", { name, exact: true }).count()).toBe(0);
    expect(await viewer.getByRole("textbox", { name: /comment/i }).count()).toBe(0);
    await viewer.context().close();
  });

  test("the owner removes the member, whose open session is refused on the next request", async () => {
    const member = await signIn("member@example.com", NEW_PASSWORD);
    await member.goto(`${server.url}/acme/issues`);
    await owner.goto(members());
    const form = owner.getByTestId("remove-member-form");
    await form.getByLabel("Member", { exact: true }).selectOption({ label: "member@example.com" });
    await form.getByLabel(/Type their email/).fill("member@example.com");
    await form.getByRole("button", { name: "Remove member" }).click();
    await eventually(async () => (await owner.getByTestId("member-row").count()) === 3, 20_000, "member gone");
    await member.goto(`${server.url}/acme/issues`);
    expect(new URL(member.url()).pathname).toBe("/login");
  });
});
