/**
 * "Forgot password?" in real Chromium with a real SMTP server (smtp-server, parsed with
 * mailparser): the sign-in page offers it, the mailed link sets a new password, the session that
 * was open elsewhere is refused on its next request, and the link does not work twice.
 * SCREENSHOTS=1 also saves the two new screens, light and dark.
 */
import type { AddressInfo } from "node:net";
import path from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";
import { type Browser, chromium, type Page } from "playwright-core";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { createTriageTenant, PASSWORD } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();
const SHOTS = process.env.SCREENSHOTS === "1";
const NEW_PASSWORD = "a fresh and long password";

async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.screenshot({ path: path.join(ROOT, "docs", "screenshots", `${name}-${theme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

describe.skipIf(!canRun)("forgot password in the browser", () => {
  const inbox: ParsedMail[] = [];
  let smtp: SMTPServer;
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, _session, done) {
        simpleParser(stream)
          .then((m) => {
            inbox.push(m);
            done();
          })
          .catch(done);
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    server = await startServer({ env: { SMTP_HOST: "127.0.0.1", SMTP_PORT: String(port), SMTP_FROM: "Errata <errata@example.com>" } });
    await createTriageTenant(server, "acme", "web", "owner@example.com");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
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

    await eventually(async () => inbox.length > 0, 20_000, "the reset mail");
    const link = inbox[0]?.text?.match(/http:\/\/127\.0\.0\.1:\d+\/reset-password\/\S+/)?.[0];
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
