/**
 * Issues 33 and 44: every page of the route table (test/security/route-table.ts, so a page added
 * later is checked without an entry here) at 1280, 390 and 360 px wide, light and dark, against
 * the built server:
 *   - nothing widens the page: the document is never wider than the viewport (tables and code
 *     scroll in their own box), listed with the elements that stick out;
 *   - axe-core (WCAG 2.1 A/AA): any serious or critical violation fails, listed with its page,
 *     width, theme, rule and nodes.
 * The seed gives the pages their states: issues, a cron monitor with check-ins, an uptime check,
 * a pending invitation (its "New link" button). A failed save of rules marks its box invalid.
 *
 * Lean by design: one server, one browser, one signed-in context; axe is injected into each page
 * (the context bypasses CSP for that one script); each page is loaded once per width and audited
 * in both schemes (the theme is CSS only). Public pages (login, invite, reset) are visited signed
 * out, as their visitors see them.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { AxeResults, Result } from "axe-core";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendReplay } from "../test/helpers/replay-envelopes.js";
import { sendTraceEnvelope } from "../test/helpers/sdk-trace.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { discoverRoutes, fill } from "../test/security/route-table.js";
import { checkoutEvent, createTriageTenant, PASSWORD, sendEvent, warningEvent } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();
const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
/** Pages a signed-out visitor opens; signed in they redirect away. */
const SIGNED_OUT = new Set(["/login", "/forgot-password", "/reset-password/[token]", "/invite/[token]", "/setup"]);

/** Widths checked: a desktop, the common phones (390: iPhone 12–15; 360: most Android). */
const WIDTHS = [1280, 390, 360] as const;

interface Finding {
  page: string;
  width: number;
  theme: string;
  rule: string;
  impact: string;
  count: number;
  nodes: string[];
}

/**
 * Runs axe in the page: every WCAG 2.0/2.1 A and AA rule plus the experimental name-contains-label
 * one, or (`coloursOnly`, the second theme: only colours differ) the contrast rule alone.
 */
/**
 * How much wider than the viewport the document is (0: it fits), with the outermost elements that
 * stick out past the right edge, not counting those inside a box that scrolls or clips them.
 */
async function overflow(page: Page): Promise<{ excess: number; culprits: string[] }> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    const width = document.documentElement.clientWidth;
    const excess = root.scrollWidth - width;
    if (excess <= 0) return { excess: 0, culprits: [] };
    const clipped = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o !== "visible") return true;
      }
      return false;
    };
    const culprits: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      const r = el.getBoundingClientRect();
      if (r.right <= width + 0.5 || r.width === 0 || clipped(el)) continue;
      // Only the outermost one of a sticking-out subtree.
      if (el.parentElement && el.parentElement.getBoundingClientRect().right > width + 0.5 && !clipped(el.parentElement)) continue;
      const id = el.id ? `#${el.id}` : "";
      const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).slice(0, 3).join(".")}` : "";
      culprits.push(`${el.tagName.toLowerCase()}${id}${cls} (right ${Math.round(r.right)})`);
      if (culprits.length >= 4) break;
    }
    return { excess, culprits };
  });
}

async function audit(page: Page, coloursOnly: boolean): Promise<Result[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const results = await page.evaluate(async (only) => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<AxeResults> } }).axe;
    return axe.run(
      document,
      only
        ? { runOnly: { type: "rule", values: ["color-contrast"] }, resultTypes: ["violations"] }
        : {
            runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
            rules: { "label-content-name-mismatch": { enabled: true } },
            resultTypes: ["violations"],
          },
    );
  }, coloursOnly);
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

describe.skipIf(!canRun)("axe-core on every page, light and dark", () => {
  let server: TestServer;
  let browser: Browser;
  let signedIn: BrowserContext;
  let signedOut: BrowserContext;
  const values: Record<string, string> = { org: "acme", digest: "1234567890", token: "0".repeat(43), version: "web@1.4.2" };

  beforeAll(async () => {
    server = await startServer();
    const t = await createTriageTenant(server, "acme", "web", "a11y@example.com");
    const api = async <T>(p: string, init: RequestInit = {}): Promise<T> => {
      const res = await fetch(`${server.url}/api/0/${p}`, {
        ...init,
        headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
      });
      if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    for (const [i, user] of [1042, 1043, 1044].entries())
      await sendEvent(server, t.dsn, checkoutEvent({ user, browser: i % 2 ? "Firefox 125" : "Chrome 124" }));
    await sendEvent(server, t.dsn, warningEvent());
    // A cron monitor (one check-in with its schedule) and an uptime check, for their pages.
    const dsn = new URL(t.dsn);
    const monitorConfig = { schedule: { type: "crontab", value: "0 * * * *" }, checkin_margin: 5, max_runtime: 30 };
    // Several check-ins (ok, error, a long one) so the monitor page shows its table and chart.
    for (const [i, status] of ["ok", "error", "ok"].entries()) {
      const checkIn = { check_in_id: String(i + 1).repeat(32), monitor_slug: "nightly", status, duration: 3 + i * 1234 };
      const envelope = `{}\n{"type":"check_in"}\n${JSON.stringify({ ...checkIn, monitor_config: monitorConfig })}\n`;
      const sent = await fetch(`${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`, { method: "POST", body: envelope });
      expect(sent.status).toBe(200);
    }
    // A pending invitation (no mail configured: its button reads "New link").
    const admin = await server.cli("token", "create", "--email", t.email, "--scopes", "member:write,org:read");
    const invited = await fetch(`${server.url}/api/0/organizations/acme/members/`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "someone.with.a.long.address@subdomain.example.com", orgRole: "member" }),
    });
    expect(invited.status, await invited.text()).toBeLessThan(300);
    const uptime = await api<{ id: number | string }>("organizations/acme/uptime/", {
      method: "POST",
      body: JSON.stringify({
        project: "web",
        name: "Shop",
        config: { url: "https://shop.example.com/health", method: "GET", interval_seconds: 300, timeout_ms: 5000 },
      }),
    }).catch(() => null);
    values.id = uptime ? String(uptime.id) : "1";
    // A session replay (issue 40) for the replay pages, naming a seeded error.
    values.replay = await sendReplay(new URL(t.dsn));
    await eventually(async () => (await api<{ data: unknown[] }>("organizations/acme/replays/")).data.length > 0, 30_000, "the replay");
    // A trace (spans, a log, an error in it) for the trace page; the explore links resolve to the list.
    const trace = await sendTraceEnvelope(dsn, "a11y");
    await eventually(() => api(`organizations/acme/trace-meta/${trace.traceId}/`).catch(() => null), 30_000, "the trace");
    values.traceId = trace.traceId;
    values.path = "traces";
    const issues = await eventually(
      async () => {
        const list = await api<Array<{ id: string; title: string }>>("projects/acme/web/issues/?query=");
        return list.length >= 2 ? list : null;
      },
      30_000,
      "the seeded issues",
    );
    await eventually(
      async () => (await api<unknown[]>("organizations/acme/monitors/").catch(() => [])).length > 0,
      20_000,
      "the cron monitor",
    );
    values.issue = (issues.find((i) => i.title.startsWith("TypeError")) ?? issues[0])?.id ?? "";
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    signedOut = await browser.newContext({ bypassCSP: true });
    signedIn = await browser.newContext({ bypassCSP: true });
    const page = await signedIn.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill(t.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/acme\/issues/);
    await page.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** The URL of a page pattern: `[slug]` is the monitor's under /monitors, the project's elsewhere. */
  function urlOf(pattern: string): string {
    const slug = pattern.startsWith("/[org]/monitors/") ? "nightly" : "web";
    const id = pattern.startsWith("/[org]/monitors/uptime/")
      ? (values.id as string)
      : pattern.startsWith("/[org]/replays/")
        ? (values.replay as string)
        : (values.issue as string);
    return fill(pattern, { ...values, slug, id });
  }

  test("every page fits 1280, 390 and 360 px in light and dark, with no serious or critical axe violation", {
    timeout: Number(process.env.A11Y_TIMEOUT ?? 900_000),
  }, async () => {
    const pages = discoverRoutes(path.join(ROOT, "src/app")).filter((r) => r.kind === "page");
    expect(pages.length).toBeGreaterThan(25);
    const findings: Finding[] = [];
    const wide: string[] = [];
    const broken: string[] = [];
    const tabs = { in: await signedIn.newPage(), out: await signedOut.newPage() };
    const only = process.env.A11Y_ONLY ? new RegExp(process.env.A11Y_ONLY) : null;
    for (const route of pages) {
      if (only && !only.test(route.pattern)) continue;
      const started = Date.now();
      const page = SIGNED_OUT.has(route.pattern) ? tabs.out : tabs.in;
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        for (const theme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: theme });
          // The theme is CSS only: the page is loaded once per width and checked in both schemes.
          if (theme === "light") {
            await page.goto(`${server.url}${urlOf(route.pattern)}`, { waitUntil: "load" });
            // Errata's own error page fits and passes axe too: a page that failed is a finding of its own.
            if ((await page.getByTestId("request-id").count()) > 0) broken.push(`${route.pattern} @${width}: the error page`);
          }
          const o = await overflow(page);
          if (o.excess > 0) wide.push(`${route.pattern} @${width} [${theme}] ${o.excess}px too wide: ${o.culprits.join(" | ")}`);
          for (const v of await audit(page, theme === "dark"))
            findings.push({
              page: route.pattern,
              width,
              theme,
              rule: v.id,
              impact: v.impact ?? "",
              count: v.nodes.length,
              nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(" ")} ${n.failureSummary?.split("\n")[1]?.trim() ?? ""}`),
            });
        }
      }
      if (process.env.A11Y_REPORT) {
        fs.writeFileSync(process.env.A11Y_REPORT, JSON.stringify({ findings, wide }, null, 2));
        console.log(`${route.pattern}: ${Date.now() - started} ms`);
      }
    }
    const summary = findings.map((f) => `${f.page} @${f.width} [${f.theme}] ${f.rule} (${f.impact}): ${f.nodes.join(" | ")}`);
    if (process.env.A11Y_REPORT) fs.writeFileSync(process.env.A11Y_REPORT, JSON.stringify({ findings, wide }, null, 2));
    expect(broken).toEqual([]);
    expect(wide).toEqual([]);
    expect(summary).toEqual([]);
  });

  test("a rule-syntax error marks its box invalid and points it at the message", async () => {
    const page = await signedIn.newPage();
    for (const [url, form, box, bad] of [
      ["/acme/projects/web/settings", "grouping-rules-form", "fingerprintingRules", "this is not -> a rule -> at all"],
      ["/acme/projects/web/settings/ownership", "ownership-form", "raw", "path:src/** #payments\nfile:x.js #nobody"],
    ] as const) {
      await page.goto(`${server.url}${url}`);
      const textarea = page.locator(`textarea[name="${box}"]`);
      await textarea.fill(bad);
      await page.getByTestId(form).getByRole("button", { name: "Save" }).click();
      const alert = page.getByTestId(form).locator("ul[role=alert]");
      await alert.waitFor();
      const id = await alert.getAttribute("id");
      expect(id).toBeTruthy();
      await expect.poll(() => textarea.getAttribute("aria-invalid")).toBe("true");
      expect((await textarea.getAttribute("aria-describedby"))?.split(" ")).toContain(id);
      // Its name and the message are both announced for it.
      const described = await textarea.evaluate((el) =>
        (el.getAttribute("aria-describedby") ?? "")
          .split(" ")
          .map((ref) => document.getElementById(ref)?.textContent ?? "")
          .join(" "),
      );
      expect(described).toMatch(/Line 2|Fingerprint rules/);
    }
    await page.close();
  });
});
