/**
 * An XSS corpus in every field an SDK controls (message, exception, frames, breadcrumbs, tags,
 * contexts, user, request, extra, release, environment, user feedback, attachment name) and in
 * comments: the stream, the search suggestions, the issue page (every section opened), the events
 * list and the activity render it as text. Nothing runs: no dialog, no console error, no
 * `javascript:` URL and no event-handler attribute in the DOM.
 */
import { randomUUID } from "node:crypto";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, startServer, type TestServer } from "../test/helpers/server.js";
import { liveStreamSearch } from "./helpers/stream-search.js";
import { createTriageTenant, PASSWORD } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();

const CORPUS = [
  "<script>alert('xss-script')</script>",
  "<img src=x onerror=alert('xss-img')>",
  "<svg onload=alert('xss-svg')><circle r=1></svg>",
  "javascript:alert('xss-js')",
  "[click me](javascript:alert('xss-md'))",
  "\"><iframe src=javascript:alert('xss-iframe')></iframe>",
  "' onmouseover='alert(1)' x='",
  "{{constructor.constructor('alert(1)')()}}",
];
const X = CORPUS.join(" ");
/** Runs in the page: injected handlers, script URLs, frames, or scripts carrying the payload. */
function hostileDom(): string[] {
  const bad: string[] = [];
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      const v = a.value.trim().toLowerCase();
      if (/^on/i.test(a.name)) bad.push(`${el.tagName} ${a.name}`);
      if (["href", "src", "action", "formaction", "xlink:href", "data"].includes(a.name) && /^(javascript|data|vbscript):/.test(v))
        bad.push(`${el.tagName} ${a.name}=${v}`);
    }
    if (["IFRAME", "OBJECT", "EMBED"].includes(el.tagName)) bad.push(el.tagName);
    // Next inlines the RSC payload (escaped JSON in self.__next_f.push); any other script carrying the payload is an injection.
    const text = el.textContent ?? "";
    if (el.tagName === "SCRIPT" && text.includes("xss-") && !/^\s*\(?self\.__next_f/.test(text)) bad.push(`script: ${text.slice(0, 80)}`);
  }
  return bad;
}

function hostileEvent(): Record<string, unknown> {
  const frame = (i: number) => ({
    function: `${CORPUS[i % CORPUS.length]}fn`,
    filename: `src/${CORPUS[(i + 1) % CORPUS.length]}.js`,
    abs_path: CORPUS[3],
    module: CORPUS[(i + 2) % CORPUS.length],
    lineno: 3,
    colno: 7,
    in_app: true,
    pre_context: [CORPUS[0], CORPUS[1]],
    context_line: CORPUS[2],
    post_context: [CORPUS[4], CORPUS[5]],
    vars: { [CORPUS[1] as string]: CORPUS[2], nested: { html: CORPUS[0], link: CORPUS[3] } },
    data: { sourcemap_error: CORPUS[1] },
  });
  return {
    event_id: randomUUID().replace(/-/g, ""),
    timestamp: Date.now() / 1000,
    platform: "javascript",
    level: "error",
    release: `rel-${CORPUS[1]}`,
    environment: CORPUS[0],
    transaction: CORPUS[3],
    server_name: CORPUS[2],
    logger: CORPUS[5],
    logentry: { formatted: `message ${X}` },
    exception: {
      values: [
        {
          type: `XssError${CORPUS[0]}`,
          value: `value ${X}`,
          module: CORPUS[2],
          mechanism: { type: CORPUS[1], handled: false },
          stacktrace: { frames: [frame(0), frame(1), frame(2), frame(3)] },
          raw_stacktrace: { frames: [frame(4), frame(5)] },
        },
      ],
    },
    breadcrumbs: {
      values: CORPUS.map((c, i) => ({
        timestamp: Date.now() / 1000 - i,
        category: c,
        type: "default",
        level: "info",
        message: c,
        data: { [c]: c, url: CORPUS[3] },
      })),
    },
    tags: Object.fromEntries(CORPUS.map((c, i) => [`xss${i}`, c.slice(0, 190)])),
    contexts: {
      [CORPUS[1] as string]: { type: CORPUS[0], [CORPUS[2] as string]: CORPUS[3] },
      browser: { name: CORPUS[1], version: CORPUS[0] },
      os: { name: CORPUS[4] },
      trace: { trace_id: CORPUS[3] },
    },
    user: {
      id: CORPUS[0],
      email: `${CORPUS[1]}@example.com`,
      username: CORPUS[4],
      name: CORPUS[5],
      ip_address: "203.0.113.9",
      [CORPUS[2] as string]: CORPUS[3],
    },
    request: {
      method: CORPUS[0],
      url: CORPUS[3],
      query_string: CORPUS[1],
      headers: { [CORPUS[6] as string]: CORPUS[2], Referer: CORPUS[3], Cookie: CORPUS[4] },
      cookies: { [CORPUS[0] as string]: CORPUS[1] },
      data: { html: CORPUS[0], link: CORPUS[4] },
      env: { REMOTE_ADDR: CORPUS[2] },
    },
    extra: { [CORPUS[0] as string]: CORPUS[1], list: CORPUS },
    sdk: { name: CORPUS[2], version: CORPUS[0] },
  };
}

describe.skipIf(!canRun)("an XSS corpus in every field executes nothing", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startServer();
    const t = await createTriageTenant(server, "acme", "web", "xss@example.com");
    const u = new URL(t.dsn);
    const event = hostileEvent();
    const header = JSON.stringify({ event_id: event.event_id, dsn: t.dsn });
    const payload = JSON.stringify(event);
    const report = JSON.stringify({ event_id: event.event_id, name: CORPUS[0], email: `${CORPUS[1]}@x.example`, comments: X });
    const file = Buffer.from(`<html><script>alert('xss-attachment')</script></html>`);
    const body = Buffer.concat([
      Buffer.from(`${header}\n${JSON.stringify({ type: "event", length: Buffer.byteLength(payload) })}\n${payload}\n`),
      Buffer.from(`${JSON.stringify({ type: "user_report", length: Buffer.byteLength(report) })}\n${report}\n`),
      Buffer.from(
        `${JSON.stringify({ type: "attachment", length: file.length, filename: `${CORPUS[1]}.html`, content_type: "text/html" })}\n`,
      ),
      file,
      Buffer.from("\n"),
    ]);
    const res = await fetch(`${server.url}/api/${u.pathname.replace(/\//g, "")}/envelope/?sentry_key=${u.username}`, {
      method: "POST",
      body,
    });
    expect(res.status).toBe(200);
    await eventually(
      async () => {
        const r = await fetch(`${server.url}/api/0/projects/acme/web/issues/?query=`, { headers: { authorization: `Bearer ${t.token}` } });
        return ((await r.json()) as unknown[]).length > 0;
      },
      30_000,
      "the hostile issue",
    );

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("dialog", async (d) => {
      problems.push(`dialog: ${d.message()}`);
      await d.dismiss();
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      // Failed loads are judged by the response listener below, which knows the URL.
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(`console: ${m.text()}`);
    });
    page.on("response", (r) => {
      if (r.status() < 400) return;
      const u = new URL(r.url());
      // Router fetches (RSC payloads, prefetches) are Next's own traffic; a 404 there is not an
      // injection, but say it so a flaky one stays diagnosable. Anything else that fails to load
      // could be a payload's <img src=…> reaching the DOM.
      if (u.searchParams.has("_rsc") || r.request().headers().rsc === "1") {
        console.warn(`xss test: router fetch answered ${r.status()}: ${u.pathname}${u.search}`);
        return;
      }
      problems.push(`load ${r.status()}: ${u.pathname}${u.search}`);
    });
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill(t.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/acme\/issues/);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function assertInert(where: string) {
    // Sweep the pointer over the content (an injected onmouseover would fire).
    for (let y = 60; y < 800; y += 40) await page.mouse.move(400, y);
    const bad = await page.evaluate(hostileDom);
    expect(bad, where).toEqual([]);
    expect(problems, where).toEqual([]);
  }

  test("the stream, its search and suggestions", async () => {
    await page.goto(`${server.url}/acme/issues`);
    const row = page.locator("tbody a[data-row-link]").first();
    await row.waitFor();
    expect(await row.textContent()).toContain("<script>alert('xss-script')</script>");
    const search = await liveStreamSearch(page);
    await search.fill("");
    await search.pressSequentially("xss1:");
    await page.getByRole("listbox", { name: "Suggestions" }).getByRole("option").first().waitFor();
    expect(await page.getByRole("listbox", { name: "Suggestions" }).textContent()).toContain("<img src=x onerror=alert('xss-img')>");
    // Enter searches what was typed unless a completion is highlighted: pick one with the arrow first.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.waitForURL(/query=xss1/);
    await page.locator("tbody a[data-row-link]").first().waitFor();
    await assertInert("stream");
    await page.goto(`${server.url}/acme/issues?query=${encodeURIComponent(`"${CORPUS[0]}"`)}`);
    await page.locator("main").waitFor();
    await assertInert("stream searched for a payload");
  });

  test("the issue page with every section open, raw frames, and the events list", async () => {
    await page.goto(`${server.url}/acme/issues`);
    await page.locator("tbody a[data-row-link]").first().click();
    await page.waitForURL(/\/acme\/issues\/\d+$/);
    await page.getByRole("heading", { name: "Latest event" }).waitFor();
    for (const d of await page.locator("main details:not([open]) > summary").all()) await d.click();
    const text = await page.locator("main").textContent();
    for (const c of [CORPUS[0], CORPUS[1], CORPUS[2], CORPUS[3]]) expect(text).toContain(c);
    expect(text).toContain("Attachments");
    const download = page.getByRole("link", { name: `${CORPUS[1]}.html` });
    expect(await download.getAttribute("href")).toMatch(/^\/acme\/issues\/\d+\/events\/[0-9a-f]{32}\/attachments\/\d+$/);
    const res = await page.request.get(new URL((await download.getAttribute("href")) as string, server.url).href);
    expect(res.headers()["content-type"]).toBe("application/octet-stream");
    expect(res.headers()["content-disposition"]).toMatch(/^attachment;/);
    await page.getByRole("button", { name: "Raw", exact: true }).click();
    await page.getByTestId("frames-raw").first().waitFor();
    await assertInert("issue page");

    await page.getByRole("link", { name: "All events" }).first().click();
    await page.waitForURL(/\/events$/);
    await page.locator("tbody tr").first().waitFor();
    await assertInert("events list");
  });

  test("comments: markdown links to javascript: stay text; HTML stays text", async () => {
    await page.goto(`${server.url}/acme/issues`);
    await page.locator("tbody a[data-row-link]").first().click();
    await page.waitForURL(/\/acme\/issues\/\d+$/);
    for (const c of CORPUS) {
      await page.getByLabel("Comment").fill(`note ${c} [a](${c}) **${c}**`);
      await page.getByRole("button", { name: "Comment" }).click();
      await expect
        .poll(async () => {
          const err = await page.locator("form [role=alert]").allTextContents();
          if (err.length > 0) throw new Error(`comment refused: ${err.join(" ")}`);
          return page.getByLabel("Comment").inputValue();
        })
        .toBe("");
    }
    const activity = page.getByRole("list", { name: "Activity" });
    await expect.poll(() => activity.locator("li").count()).toBeGreaterThanOrEqual(CORPUS.length);
    expect(await activity.textContent()).toContain("<script>alert('xss-script')</script>");
    await page.reload();
    await activity.waitFor();
    await assertInert("activity");
  });
});
