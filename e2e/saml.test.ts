/**
 * SAML 2.0 end to end in real Chromium against a SAML identity provider started here (built on
 * xml-crypto, test/helpers/saml-idp.ts: its own login page, an HTTP-Redirect AuthnRequest in,
 * an auto-posting form out), on SQLite and PostgreSQL: the owner configures it from the provider's
 * metadata URL with Okta's attribute preset and maps a group to a team and a role; the test button
 * shows what the provider asserted; a new person signs in SP-initiated and lands in the
 * organization through the mapping (marked managed on the members page); another signs in
 * IdP-initiated; the audit log shows both. SCREENSHOTS=1 also saves the settings and the audit log,
 * light and dark, desktop and phone.
 */
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type SamlIdp, startSamlIdp } from "../test/helpers/saml-idp.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { dialects } from "../test/helpers/test-db.js";
import { SCREENSHOTS } from "./helpers/screenshots.js";
import { createTriageTenant, PASSWORD, sendEvent } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();

describe.skipIf(!canRun).each(await dialects())("SAML sign-in through a real identity provider in Chromium on %s", (dialect) => {
  let server: TestServer;
  let idp: SamlIdp;
  let browser: Browser;
  let owner: Page;

  beforeAll(async () => {
    server = await startServer({ dialect, env: { SSO_ALLOW_PRIVATE: "true" } });
    idp = await startSamlIdp({ acsUrl: `${server.url}/api/sso/acme/saml/acs`, audience: `${server.url}/api/sso/acme/saml/metadata` });
    idp.groups.set("dana", ["errata-engineers"]);
    const tenant = await createTriageTenant(server, "acme", "web", "owner@example.com");
    await sendEvent(server, tenant.dsn, { level: "error", message: "Checkout failed" });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    owner = await (await browser.newContext()).newPage();
    await owner.goto(`${server.url}/login`);
    await owner.getByLabel("Email").fill("owner@example.com");
    await owner.getByLabel("Password").fill(PASSWORD);
    await owner.getByRole("button", { name: "Sign in", exact: true }).click();
    await owner.waitForURL((u) => !u.pathname.startsWith("/login"));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await idp?.close();
  });

  /** At the provider's login page: sign in as `login`; its page posts the response to the ACS. */
  async function atIdp(page: Page, login: string): Promise<void> {
    await page.waitForURL((u) => u.origin === idp.url);
    await page.getByLabel("Login").fill(login);
    await page.getByRole("button", { name: "Sign in at IdP" }).click();
  }

  async function screens(page: Page, url: string, name: string): Promise<void> {
    if (!SCREENSHOTS || dialect !== "sqlite") return;
    const ctxs = [
      { suffix: "", viewport: { width: 1280, height: 900 } },
      { suffix: "-phone", viewport: { width: 375, height: 812 } },
    ];
    for (const c of ctxs) {
      const ctx = await browser.newContext({ viewport: c.viewport, storageState: await page.context().storageState() });
      const p = await ctx.newPage();
      await p.goto(url);
      for (const theme of ["light", "dark"] as const) {
        await p.emulateMedia({ colorScheme: theme });
        await p.screenshot({ path: path.join(ROOT, "docs", "screenshots", `${name}${c.suffix}-${theme}.png`), fullPage: true });
      }
      // Nothing may widen the page on a phone.
      const width = await p.evaluate(() => {
        const root = document.documentElement;
        const wide = [...document.querySelectorAll("body *")]
          .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 1 && !e.closest(".overflow-x-auto"))
          .slice(0, 5)
          .map((e) => `${e.tagName}.${e.className}`.slice(0, 120));
        return { fits: root.scrollWidth <= root.clientWidth, wide, sw: root.scrollWidth, cw: root.clientWidth };
      });
      expect(width, `${name}${c.suffix}`).toMatchObject({ fits: true, wide: [] });
      await ctx.close();
    }
  }

  test("the owner configures SAML from the metadata URL, maps a group, and the test button shows what the provider asserted", async () => {
    await owner.goto(`${server.url}/acme/settings/teams`);
    await owner.getByLabel("Name").fill("Engineering");
    await owner.getByRole("button", { name: "Create team" }).click();
    await owner.getByText("Engineering").first().waitFor();

    await owner.goto(`${server.url}/acme/settings/sso?protocol=saml`);
    expect(await owner.getByTestId("saml-acs-url").innerText()).toBe(`${server.url}/api/sso/acme/saml/acs`);
    const form = owner.getByTestId("saml-form");
    await form.getByLabel("Metadata URL").first().check();
    await form.getByRole("textbox", { name: "Metadata URL" }).fill(`${idp.url}/metadata`);
    await form.getByRole("button", { name: "Okta" }).click();
    expect(await form.getByLabel("Email attribute").inputValue()).toBe("email");
    await form.getByLabel("Role of new people").selectOption("member");
    await form.getByRole("button", { name: "Save SAML" }).click();
    await form.getByText(/Saved: .* with 1 certificate/).waitFor();
    await owner.reload();
    expect(await owner.getByTestId("sso-state").innerText()).toMatch(/Active — SAML 2\.0/);
    await owner.getByTestId("saml-certificates").waitFor();

    const mapping = owner.getByTestId("group-mapping-form");
    await mapping.getByLabel("Group").fill("errata-engineers");
    await mapping.getByLabel("Team").selectOption("engineering");
    await mapping.getByLabel("Role").selectOption("admin");
    await mapping.getByRole("button", { name: "Save mapping" }).click();
    await owner.getByTestId("group-mapping-row").filter({ hasText: "errata-engineers" }).waitFor();

    await owner.getByTestId("saml-test").getByRole("button", { name: "Test sign-in" }).click();
    await atIdp(owner, "tester");
    await owner.waitForURL((u) => u.pathname === "/acme/settings/sso" && u.searchParams.has("saml_test"));
    const result = owner.getByTestId("saml-test-result");
    await result.waitFor();
    expect(await result.innerText()).toContain("tester@example.com");
    // A test signs nobody in and provisions nobody.
    await owner.goto(`${server.url}/acme/settings/members`);
    expect(await owner.getByTestId("member-row").filter({ hasText: "tester@example.com" }).count()).toBe(0);
    await screens(owner, `${server.url}/acme/settings/sso?protocol=saml`, "sso-saml-settings");
  });

  test("SP-initiated: a new person signs in at the provider and lands in the organization through the group mapping", async () => {
    expect(idp.requests.length).toBeGreaterThan(0);
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Organization").fill("acme");
    await page.getByRole("button", { name: "Continue with SSO" }).click();
    await atIdp(page, "dana");
    await page.waitForURL(`${server.url}/acme/issues`);
    await page
      .getByRole("link", { name: /Checkout failed/ })
      .first()
      .waitFor();
    // The AuthnRequest went out signed, by the HTTP-Redirect binding.
    expect(idp.requests.at(-1)?.signed).toBe(true);

    await owner.goto(`${server.url}/acme/settings/members`);
    const row = owner.getByTestId("member-row").filter({ hasText: "dana@example.com" });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/admin[\s\S]*managed by your identity provider/);
    await owner.goto(`${server.url}/acme/settings/teams`);
    await owner.getByTestId("team-member").filter({ hasText: "dana@example.com" }).getByText("managed by your identity provider").waitFor();
  });

  test("an existing account is linked only from that account: refused from a fresh browser, linked from the account page", async () => {
    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(`${idp.url}/init?user=owner`);
    await stranger.waitForURL((u) => u.pathname === "/login");
    expect(new URL(stranger.url()).searchParams.get("sso_error")).toBe("sso_link_required");
    await stranger.getByText(/already exists\. Sign in with its password first/).waitFor();

    await owner.goto(`${server.url}/account`);
    await owner.getByRole("link", { name: "Link with acme SSO" }).click();
    await atIdp(owner, "owner");
    await owner.waitForURL(`${server.url}/account`);
    await owner.getByTestId("sso-links").getByText("✓ Linked").waitFor();
  });

  test("IdP-initiated: the provider's own launch signs a person in; the audit log shows the sign-ins", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${idp.url}/init?user=erin&relay=${encodeURIComponent("/acme/issues")}`);
    await page.waitForURL(`${server.url}/acme/issues`);
    await page
      .getByRole("link", { name: /Checkout failed/ })
      .first()
      .waitFor();

    await owner.goto(`${server.url}/acme/settings/audit-log`);
    const rows = owner.getByTestId("audit-row");
    await rows.filter({ hasText: "erin@example.com" }).first().waitFor();
    expect(await rows.filter({ hasText: "dana@example.com" }).count()).toBeGreaterThan(0);
    expect(await rows.filter({ hasText: "set up SAML" }).count()).toBe(1);
    await screens(owner, `${server.url}/acme/settings/audit-log`, "audit-log");
  });
});
