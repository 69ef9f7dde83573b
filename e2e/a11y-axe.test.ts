/**
 * Issue 33: axe-core (WCAG 2.1 A/AA) on every page of the route table (test/security/route-table.ts,
 * so a page added later is audited without an entry here), in light and dark, against the built
 * server. Any serious or critical violation fails, listed with its page, theme, rule and nodes.
 *
 * Lean by design: one server, one browser, one signed-in context; axe is injected into each page
 * (the context bypasses CSP for that one script). Public pages (login, invite, reset) are visited
 * signed out, as their visitors see them.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { AxeResults, Result } from "axe-core";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendTraceEnvelope } from "../test/helpers/sdk-trace.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, eventually, ROOT, startServer, type TestServer } from "../test/helpers/server.js";
import { discoverRoutes, fill } from "../test/security/route-table.js";
import { checkoutEvent, createTriageTenant, PASSWORD, sendEvent, warningEvent } from "./helpers/triage-fixtures.js";

const canRun = chromiumAvailable();
const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
/** Pages a signed-out visitor opens; signed in they redirect away. */
const SIGNED_OUT = new Set(["/login", "/forgot-password", "/reset-password/[token]", "/invite/[token]", "/setup"]);

interface Finding {
  page: string;
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
    const checkIn = { check_in_id: "a".repeat(32), monitor_slug: "nightly", status: "ok", duration: 3 };
    const monitorConfig = { schedule: { type: "crontab", value: "0 * * * *" }, checkin_margin: 5, max_runtime: 30 };
    const envelope = `{}\n{"type":"check_in"}\n${JSON.stringify({ ...checkIn, monitor_config: monitorConfig })}\n`;
    const sent = await fetch(`${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`, { method: "POST", body: envelope });
    expect(sent.status).toBe(200);
    const uptime = await api<{ id: number | string }>("organizations/acme/uptime/", {
      method: "POST",
      body: JSON.stringify({
        project: "web",
        name: "Shop",
        config: { url: "https://shop.example.com/health", method: "GET", interval_seconds: 300, timeout_ms: 5000 },
      }),
    }).catch(() => null);
    values.id = uptime ? String(uptime.id) : "1";
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
    const id = pattern.startsWith("/[org]/monitors/uptime/") ? (values.id as string) : (values.issue as string);
    return fill(pattern, { ...values, slug, id });
  }

  test("no serious or critical violation on any page", { timeout: Number(process.env.A11Y_TIMEOUT ?? 600_000) }, async () => {
    const pages = discoverRoutes(path.join(ROOT, "src/app")).filter((r) => r.kind === "page");
    expect(pages.length).toBeGreaterThan(25);
    const findings: Finding[] = [];
    const tabs = { in: await signedIn.newPage(), out: await signedOut.newPage() };
    const only = process.env.A11Y_ONLY ? new RegExp(process.env.A11Y_ONLY) : null;
    for (const route of pages) {
      if (only && !only.test(route.pattern)) continue;
      const started = Date.now();
      const page = SIGNED_OUT.has(route.pattern) ? tabs.out : tabs.in;
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        // The theme is CSS only: the page is loaded once and audited in both schemes.
        if (theme === "light") await page.goto(`${server.url}${urlOf(route.pattern)}`, { waitUntil: "load" });
        for (const v of await audit(page, theme === "dark"))
          findings.push({
            page: route.pattern,
            theme,
            rule: v.id,
            impact: v.impact ?? "",
            count: v.nodes.length,
            nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(" ")} ${n.failureSummary?.split("\n")[1]?.trim() ?? ""}`),
          });
      }
      if (process.env.A11Y_REPORT) {
        fs.writeFileSync(process.env.A11Y_REPORT, JSON.stringify(findings, null, 2));
        console.log(`${route.pattern}: ${Date.now() - started} ms`);
      }
    }
    const summary = findings.map((f) => `${f.page} [${f.theme}] ${f.rule} (${f.impact}): ${f.nodes.join(" | ")}`);
    if (process.env.A11Y_REPORT) fs.writeFileSync(process.env.A11Y_REPORT, JSON.stringify(findings, null, 2));
    expect(summary).toEqual([]);
  });
});
