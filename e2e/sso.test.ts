/**
 * Single sign-on end to end in real Chromium against a real OpenID Connect provider
 * (`oidc-provider`, started here on 127.0.0.1 with its own login and consent pages): the owner
 * configures it in the settings, a new person signs in through the provider and is provisioned as
 * a member, an existing account is not taken over by an email the provider asserts, and "Require
 * SSO" refuses a member's password while the owner keeps theirs.
 * SCREENSHOTS=1 also saves the settings and the sign-in page, light and dark.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, startServer, type TestServer } from "../test/helpers/server.js";
import { dialects } from "../test/helpers/test-db.js";
import { shoot } from "./helpers/screenshots.js";
import { createTriageTenant, PASSWORD, sendEvent } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();
const CLIENT_SECRET = "a-client-secret-of-the-test-provider";
const NEW_PASSWORD = "a long enough password";

/** A real OIDC provider; every login name is an account `<name>@example.com` with a verified email. */
async function startProvider(redirectUri: string): Promise<{ issuer: string; close(): Promise<void> }> {
  const httpServer = http.createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: "errata",
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri],
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    // `groups` rides on the profile scope here (providers differ: Okta and Keycloak have a groups scope or mapper).
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
    async findAccount(_ctx, id) {
      return {
        accountId: id,
        claims: async () => ({
          sub: `subject-${id}`,
          email: `${id}@example.com`,
          email_verified: true,
          name: `Person ${id}`,
          groups: id === "gus" ? ["oidc-ops"] : [],
        }),
      };
    },
    cookies: { keys: ["a cookie signing key of the test provider"] },
    features: { devInteractions: { enabled: true } },
  });
  httpServer.on("request", provider.callback());
  return { issuer, close: () => new Promise<void>((resolve) => httpServer.close(() => resolve())) };
}

describe.skipIf(!canRun).each(await dialects())("single sign-on with a real OpenID Connect provider on %s", (dialect) => {
  let server: TestServer;
  let idp: { issuer: string; close(): Promise<void> };
  let browser: Browser;
  let owner: Page;

  beforeAll(async () => {
    server = await startServer({ dialect, env: { SSO_ALLOW_PRIVATE: "true" } });
    idp = await startProvider(`${server.url}/api/sso/acme/callback`);
    const tenant = await createTriageTenant(server, "acme", "web", "owner@example.com");
    await sendEvent(server, tenant.dsn, { level: "error", message: "Checkout failed" });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    owner = await passwordSignIn("owner@example.com", PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await idp?.close();
  });

  async function passwordSignIn(email: string, password: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
    return page;
  }

  /** From Errata's sign-in page through the provider's login and consent pages. */
  async function ssoSignIn(page: Page, login: string): Promise<void> {
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Organization").fill("acme");
    await page.getByRole("button", { name: "Continue with SSO" }).click();
    await providerLogin(page, login);
  }

  async function providerLogin(page: Page, login: string): Promise<void> {
    await page.waitForURL((u) => u.origin === idp.issuer);
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill("anything");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
  }

  async function configure(required: boolean): Promise<void> {
    await owner.goto(`${server.url}/acme/settings/sso`);
    const form = owner.getByTestId("sso-form");
    await form.getByLabel("Issuer URL").fill(idp.issuer);
    await form.getByLabel("Client id").fill("errata");
    await form.getByLabel("Client secret").fill(CLIENT_SECRET);
    await form.getByLabel("Role of new people").selectOption("member");
    const req = form.getByLabel(/Require SSO/);
    if (required) await req.check();
    else await req.uncheck();
    await form.getByRole("button", { name: "Save and check" }).click();
    await form.getByText(/Saved\. The provider answered/).waitFor();
  }

  test("the owner configures the provider; a new person signs in through it and lands in the organization as a member", async () => {
    await owner.goto(`${server.url}/acme/settings/sso`);
    expect(await owner.getByTestId("sso-redirect-uri").innerText()).toBe(`${server.url}/api/sso/acme/callback`);
    // A wrong issuer is caught when saving, not at the first sign-in.
    const form = owner.getByTestId("sso-form");
    await form.getByLabel("Issuer URL").fill("http://127.0.0.1:9/nothing-here");
    await form.getByLabel("Client id").fill("errata");
    await form.getByLabel("Client secret").fill(CLIENT_SECRET);
    await form.getByRole("button", { name: "Save and check" }).click();
    await form.getByText(/discovery document could not be read/).waitFor();
    await configure(false);
    await owner.reload();
    expect(await owner.getByTestId("sso-state").innerText()).toMatch(/Active/);
    if (dialect === "sqlite") await shoot(owner, "sso-settings");

    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/login`);
    if (dialect === "sqlite") await shoot(page, "login-sso");
    await ssoSignIn(page, "dana");
    await page.waitForURL(`${server.url}/acme/issues`);
    await page
      .getByRole("link", { name: /Checkout failed/ })
      .first()
      .waitFor();

    await owner.goto(`${server.url}/acme/settings/members`);
    const row = owner.locator("tr", { hasText: "dana@example.com" });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/member/);

    // The second sign-in finds the same account by the provider's subject.
    const again = await (await browser.newContext()).newPage();
    await ssoSignIn(again, "dana");
    await again.waitForURL(`${server.url}/acme/issues`);
    await owner.reload();
    expect(await owner.locator("tr", { hasText: "dana@example.com" }).count()).toBe(1);
  });

  test("an email that already has an account is not taken over: the provider's answer needs that account signed in to link", async () => {
    await configure(false);
    // owner@example.com exists with a password; the provider vouches for "owner" → owner@example.com.
    const stranger = await (await browser.newContext()).newPage();
    await ssoSignIn(stranger, "owner");
    await stranger.waitForURL((u) => u.pathname === "/login");
    await stranger.getByText(/already exists\. Sign in with its password first/).waitFor();
    if (dialect === "sqlite") await shoot(stranger, "login-sso-error");
    expect(new URL(stranger.url()).searchParams.get("sso_error")).toBe("sso_link_required");
    // Nobody is signed in in that browser.
    await stranger.goto(`${server.url}/acme/issues`);
    await stranger.waitForURL((u) => u.pathname === "/login");

    // Signed in with the password, the account page links it through the provider.
    await owner.goto(`${server.url}/account`);
    await owner.getByRole("link", { name: "Link with acme SSO" }).click();
    await providerLogin(owner, "owner");
    await owner.waitForURL(`${server.url}/account`);
    await owner.getByTestId("sso-links").getByText("✓ Linked").waitFor();
  });

  test("Require SSO refuses a member's correct password with a clear message; the owner's password still works", async () => {
    // A member with a password, invited by link.
    await owner.goto(`${server.url}/acme/settings/members`);
    await owner.getByLabel("Email", { exact: true }).fill("pat@example.com");
    await owner.getByLabel("Role", { exact: true }).selectOption("member");
    await owner.getByRole("button", { name: "Invite" }).click();
    const link = (await owner.getByTestId("invite-link").locator("code").innerText()).trim();
    const invited = await (await browser.newContext()).newPage();
    await invited.goto(link);
    await invited.getByLabel("Your name").fill("Pat");
    await invited.getByLabel("Password").fill(NEW_PASSWORD);
    await invited.getByRole("button", { name: "Create account and join" }).click();
    await invited.waitForURL(/\/acme\/issues/);

    await configure(true);
    // Switching it on signed the member's open (password) session out.
    await invited.goto(`${server.url}/acme/issues`);
    await invited.waitForURL((u) => u.pathname === "/login");
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill("pat@example.com");
    await page.getByLabel("Password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText(/requires single sign-on/).waitFor();
    await page.goto(`${server.url}/acme/issues`);
    await page.waitForURL((u) => u.pathname === "/login");

    // A wrong password says nothing about SSO (no hint which organizations an address is in).
    const wrong = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "pat@example.com", password: "not the password at all" }),
    });
    expect(wrong.status).toBe(401);
    const ownerLogin = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "owner@example.com", password: PASSWORD }),
    });
    expect(ownerLogin.status).toBe(200);
    // Unknown organizations and organizations without SSO answer alike.
    const unknown = await fetch(`${server.url}/api/sso/no-such-org/start`, { redirect: "manual" });
    expect(unknown.status).toBe(302);
    expect(unknown.headers.get("location")).toBe("/login?sso_error=sso_not_configured&org=no-such-org");
  });

  test("the provider's groups claim becomes a role through a group mapping, and the member is marked managed", async () => {
    await configure(false);
    await owner.goto(`${server.url}/acme/settings/sso`);
    const mapping = owner.getByTestId("group-mapping-form");
    await mapping.getByLabel("Group").fill("oidc-ops");
    await mapping.getByLabel("Role").selectOption("admin");
    await mapping.getByRole("button", { name: "Save mapping" }).click();
    await owner.getByTestId("group-mapping-row").filter({ hasText: "oidc-ops" }).waitFor();
    const page = await (await browser.newContext()).newPage();
    await ssoSignIn(page, "gus");
    await page.waitForURL(`${server.url}/acme/issues`);
    await owner.goto(`${server.url}/acme/settings/members`);
    const row = owner.getByTestId("member-row").filter({ hasText: "gus@example.com" });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/admin[\s\S]*managed by your identity provider/);
  });
});
