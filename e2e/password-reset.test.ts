import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, startServer, type TestServer } from "../test/helpers/server.js";
import { type SmtpInbox, startSmtpInbox } from "../test/helpers/smtp-inbox.js";
import { shoot } from "./helpers/screenshots.js";
import { createTriageTenant, PASSWORD } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();
const NEW_PASSWORD = "a fresh and long password";

describe.skipIf(!canRun)("forgot password in the browser", () => {
  let smtp: SmtpInbox;
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    smtp = await startSmtpInbox();
    server = await startServer({ env: smtp.env });
    await createTriageTenant(server, "acme", "web", "owner@example.com");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  async function signIn(password: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill("owner@example.com");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
    return page;
  }

  test("the mailed link sets a new password, signs the other session out, and works once", async () => {
    const elsewhere = await signIn(PASSWORD);

    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/login`);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.waitForURL(`${server.url}/forgot-password`);
    await shoot(page, "forgot-password");
    await page.getByLabel("Email").fill("owner@example.com");
    await page.getByRole("button", { name: "Send the link" }).click();
    await page
      .getByRole("status")
      .getByText(/a link to choose a new password is on its way/)
      .waitFor();

    await eventually(async () => smtp.mails.length > 0, 20_000, "the reset mail");
    const link = smtp.mails[0]?.text?.match(/http:\/\/127\.0\.0\.1:\d+\/reset-password\/\S+/)?.[0];
    expect(link).toBeDefined();
    await page.goto(link as string);
    await page.getByText("For owner@example.com").waitFor();
    await shoot(page, "reset-password");
    await page.getByLabel("New password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Set the password" }).click();
    await page.waitForURL(`${server.url}/login?reset=1`);
    await page.getByText(/Your password is set and every session was signed out/).waitFor();

    await elsewhere.goto(`${server.url}/acme/issues`);
    await elsewhere.waitForURL((u) => u.pathname === "/login");
    await signIn(NEW_PASSWORD);

    await page.goto(link as string);
    await page.getByText("This link no longer works").waitFor();
  });
});
