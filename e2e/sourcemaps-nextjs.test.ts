/**
 * Issue 5, item 3: a real Next.js production build (the repository's `next`, Turbopack) with the
 * stock @sentry/nextjs 11.0.0, whose source-map upload (its bundler plugin, the JS `sentry` CLI
 * underneath) is pointed at Errata. The app runs with `next start`; a client component's click
 * handler throws in Chromium; Errata's event shows the original file, function, line and source.
 * The app (test/sourcemaps/nextjs-app) is built once from a copy under .tmp/ (~40 s on two cores).
 */
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildAndStartNextApp, type NextApp } from "../test/helpers/nextjs-app.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { tempDir } from "../test/helpers/test-db.js";
import { createTenant, type StoredEvent, type Tenant, topFrame } from "../test/sourcemaps/helpers.js";

const canRun = chromiumAvailable();
const FIXTURE = path.join(ROOT, "test/sourcemaps/nextjs-app");

describe.skipIf(!canRun)("Next.js production build with @sentry/nextjs uploading its source maps to Errata", () => {
  let server: TestServer;
  let browser: Browser;
  let t: Tenant;
  let app: NextApp | undefined;
  let appUrl: string;
  let buildLog = "";

  beforeAll(async () => {
    server = await startServer({});
    t = await createTenant(server);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      // The uploader may write config/cache under HOME: never the developer's.
      HOME: tempDir("next-sentry-home-"),
      NEXT_PUBLIC_ERRATA_DSN: t.dsn,
      SENTRY_URL: server.url,
      SENTRY_AUTH_TOKEN: t.token,
      SENTRY_ORG: t.org,
      SENTRY_PROJECT: t.project,
    };
    app = await buildAndStartNextApp({ fixture: FIXTURE, name: "nextjs-sourcemaps", env });
    appUrl = app.url;
    buildLog = app.buildLog;
    if (process.env.DEBUG_BUILDLOG) console.log(buildLog);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await server?.stop();
  });

  test("a client component throws; its frame reads as the original source", async () => {
    const tab = await browser.newPage();
    await tab.goto(`${appUrl}/`);
    await tab.getByRole("button", { name: "Apply coupon" }).click();
    const auth = { authorization: `Bearer ${t.token}` };
    const issueId = await eventually(
      async () => {
        const res = await fetch(`${server.url}/api/0/projects/${t.org}/${t.project}/issues/`, { headers: auth });
        const issues = (await res.json()) as Array<{ id: string; title: string }>;
        return issues.find((i) => i.title.includes("coupon BROKEN-42 exploded"))?.id;
      },
      30_000,
      `the issue from the browser (build log:\n${buildLog.slice(-2000)})`,
    );
    await tab.close();
    const event = (await (
      await fetch(`${server.url}/api/0/organizations/${t.org}/issues/${issueId}/events/latest/`, { headers: auth })
    ).json()) as StoredEvent;

    const frames = event.exception.values[0]?.stacktrace.frames ?? [];
    const thrower = frames.find((f) => String(f.filename).endsWith("coupon-button.jsx") && f.lineno === 5);
    expect(thrower, JSON.stringify(frames, null, 1)).toMatchObject({
      function: "applyCoupon",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the expected source line is a template literal
      context_line: "    throw new Error(`coupon ${code} exploded in a client component`);",
      in_app: true,
    });
    expect(topFrame(event)).toBe(thrower);
    expect(event.exception.values[0]?.raw_stacktrace?.frames.at(-1)?.abs_path).toMatch(/\/_next\/static\/chunks\/.+\.js$/);
    expect(event.errata.notes.filter((n) => n.type === "sourcemap")).toEqual([]);
  });
});
