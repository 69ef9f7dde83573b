/**
 * Per-project grouping rules end to end, against the real build: set through Sentry's project API
 * (`fingerprintingRules`, `groupingEnhancements` on PUT /api/0/projects/{org}/{project}/) and
 * through the settings page in Chromium (bad lines refused, each named), applied by the digest to
 * events sent over HTTP, named by the "Grouped by", and previewed on the latest events.
 */
import { randomUUID } from "node:crypto";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, eventually, startServer, type TestServer } from "../test/helpers/server.js";
import { shoot } from "./helpers/screenshots.js";

const PASSWORD = "correct horse battery";

/** A Spring error whose newest in-app frame is `helperModule.check`. */
function javaError(helperModule: string, value = "order missing"): Record<string, unknown> {
  const f = (module: string, fn: string, inApp: boolean) => ({ module, function: fn, filename: "X.java", lineno: 7, in_app: inApp });
  return {
    platform: "java",
    level: "error",
    exception: {
      values: [
        {
          type: "java.lang.IllegalStateException",
          value,
          stacktrace: {
            frames: [f("java.lang.Thread", "run", false), f("com.shop.OrderService", "place", true), f(helperModule, "check", true)],
          },
        },
      ],
    },
  };
}

describe("grouping rules (API, settings page, digest)", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let dsn: string;
  let token: string;
  const api = () => `${server.url}/api/0/projects/acme/shop/`;
  const auth = () => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

  /** Sends an event through the store endpoint and waits for its issue id. */
  async function send(event: Record<string, unknown>): Promise<string> {
    const u = new URL(dsn);
    const eventId = randomUUID().replace(/-/g, "");
    const item = JSON.stringify({ ...event, event_id: eventId });
    const res = await fetch(`${u.protocol}//${u.host}/api${u.pathname}/envelope/`, {
      method: "POST",
      headers: { "X-Sentry-Auth": `Sentry sentry_version=7, sentry_key=${u.username}, sentry_client=e2e/1.0` },
      body: `{"event_id":"${eventId}"}\n{"type":"event"}\n${item}`,
    });
    expect(res.status).toBe(200);
    return eventually(
      async () => {
        const r = await fetch(`${api()}events/${eventId}/`, { headers: auth() });
        return r.ok ? ((await r.json()) as { groupID: string }).groupID : undefined;
      },
      30_000,
      `event ${eventId} digested`,
    );
  }

  beforeAll(async () => {
    server = await startServer();
    await server.cli("user", "create", "--email", "owner@example.com", "--password", PASSWORD, "--org", "acme");
    dsn = await server.cli("project", "create", "--org", "acme", "--name", "shop", "--platform", "java");
    token = await server.cli(
      "token",
      "create",
      "--email",
      "owner@example.com",
      "--scopes",
      "org:read,project:read,project:write,event:read",
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel(/email/i).fill("owner@example.com");
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("stack trace rules through Sentry's project API: bad lines refused, good ones applied and named", async () => {
    // Without a rule, two helpers are two issues.
    expect(await send(javaError("com.shop.util.GuardA"))).not.toBe(await send(javaError("com.shop.util.GuardB")));

    const initial = (await (await fetch(api(), { headers: auth() })).json()) as Record<string, unknown>;
    expect(initial).toMatchObject({ slug: "shop", fingerprintingRules: "", groupingEnhancements: "", groupingConfig: "v3" });

    const bad = await fetch(api(), {
      method: "PUT",
      headers: auth(),
      body: JSON.stringify({ groupingEnhancements: "stack.module:com.shop.util.* -group\nstack.module:x +sideways\nnonsense" }),
    });
    expect(bad.status).toBe(400);
    const err = ((await bad.json()) as { error: { code: string; fields: Array<{ field: string; message: string }> } }).error;
    expect(err.code).toBe("validation_failed");
    expect(err.fields.map((f) => f.message)).toEqual([expect.stringMatching(/^line 2: /), expect.stringMatching(/^line 3: /)]);

    const put = await fetch(api(), {
      method: "PUT",
      headers: auth(),
      body: JSON.stringify({ groupingEnhancements: "stack.module:com.shop.util.* -group" }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ groupingEnhancements: "stack.module:com.shop.util.* -group" });

    const c = await send(javaError("com.shop.util.GuardC"));
    expect(await send(javaError("com.shop.util.GuardD"))).toBe(c);
    // The rule ignores only com.shop.util: another helper still splits.
    expect(await send(javaError("com.shop.billing.Limits"))).not.toBe(c);

    // The "Grouped by" names the rule.
    await page.goto(`${server.url}/acme/issues/${c}`);
    await expect
      .poll(() => page.locator("body").innerText(), { timeout: 20_000 })
      .toContain('stack trace rule line 1 "stack.module:com.shop.util.* -group"');
  });

  test("fingerprint rules through the settings page: each bad line named, the saved rule applied, the draft previewed", async () => {
    await page.goto(`${server.url}/acme/projects/shop/settings#grouping-rules`);
    const form = page.getByTestId("grouping-rules-form");
    await expect.poll(() => form.getByLabel("Stack trace rules").inputValue()).toBe("stack.module:com.shop.util.* -group");

    await form.getByLabel("Fingerprint rules").fill('error.value:"declined*" payments\nerror.type:Foo -> ok\nbogus.key:x -> y');
    await form.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => form.innerText(), { timeout: 20_000 }).toMatch(/line 1: .*->.*line 3: unknown matcher "bogus.key"/s);

    await form
      .getByLabel("Fingerprint rules")
      .fill('# card and bank declines are one problem\nerror.value:"declined*" -> payments-declined');
    // The draft is previewed before it is saved.
    await page.getByRole("button", { name: /Preview on the last 1,000 events/ }).click();
    const preview = page.getByTestId("grouping-preview-result");
    await expect.poll(() => preview.innerText(), { timeout: 20_000 }).toMatch(/events: \d+ issues now, \d+ (issues )?with these rules/);
    await shoot(page, "grouping-rules-settings");

    await form.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => form.innerText(), { timeout: 20_000 }).toContain("Saved.");
    const fromApi = (await (await fetch(api(), { headers: auth() })).json()) as { fingerprintingRules: string };
    expect(fromApi.fingerprintingRules).toContain('error.value:"declined*" -> payments-declined');

    const card = await send({ platform: "python", exception: { values: [{ type: "CardError", value: "declined: insufficient funds" }] } });
    expect(await send({ platform: "python", exception: { values: [{ type: "BankError", value: "Declined by issuer" }] } })).toBe(card);
    expect(await send({ platform: "python", exception: { values: [{ type: "BankError", value: "timeout" }] } })).not.toBe(card);
  }, 300_000);
});
