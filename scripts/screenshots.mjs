#!/usr/bin/env node
// Screenshots of the UI against a running Errata, light and dark, 1280×800, into docs/screenshots/.
//
//   BASE_URL=http://127.0.0.1:9123 EMAIL=a@b.c PASSWORD='correct horse battery' ORG=acme \
//     node scripts/screenshots.mjs
//
// DO_SETUP=1 fills the /setup form first (fresh instance; NAME/ORG_NAME optional).
// SUFFIX=-empty names the stream shot issues-empty-<theme>.png (detected automatically too).
// ONLY=setup,login,issues,issue,events limits which screens are taken; ISSUE=<title text> picks the issue shown.
// Project and release screens: ONLY=onboarding,projects,settings,releases,release,feedback; PROJECT=<slug>
// (default web) for settings, RELEASE=<version> for the release page (default: the newest),
// WAITING=<slug> a project without events for the onboarding's waiting state. PHONE=1 adds 390 px shots.
// Uptime: ONLY=uptime shoots the monitors list, its create form open, and an uptime check's page
// (UPTIME=<name>, default: the first).
// Replays: ONLY=replays,replay shoots the replays list and the first replay's page with its player,
// and (replay-issue) the issue page of the replay's first error with its player.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const base = (process.env.BASE_URL ?? "http://127.0.0.1:9123").replace(/\/$/, "");
const email = process.env.EMAIL ?? "a@b.c";
const password = process.env.PASSWORD ?? "correct horse battery";
const org = process.env.ORG ?? "acme";
const out = path.resolve(root, process.env.OUT ?? "docs/screenshots");
const only = process.env.ONLY ? new Set(process.env.ONLY.split(",")) : null;
const want = (name) => !only || only.has(name);
fs.mkdirSync(out, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const viewport = { width: 1280, height: 800 };
const saved = [];

async function shot(page, name, opts = {}) {
  const file = path.join(out, `${name}.png`);
  await page.screenshot({ path: file, ...opts });
  saved.push(path.relative(root, file));
}

try {
  // Public pages (no session).
  for (const theme of ["light", "dark"]) {
    const ctx = await browser.newContext({ viewport, colorScheme: theme });
    const page = await ctx.newPage();
    if (want("setup")) {
      await page.goto(`${base}/setup`);
      if (new URL(page.url()).pathname === "/setup") await shot(page, `setup-${theme}`);
    }
    if (process.env.DO_SETUP === "1" && theme === "light") {
      await page.goto(`${base}/setup`);
      await page.getByLabel("Your name").fill(process.env.NAME ?? "Ada Lovelace");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByLabel("Organization name").fill(process.env.ORG_NAME ?? "Acme");
      await page.getByLabel("Organization slug").fill(org);
      await page.getByRole("button", { name: /create account/i }).click();
      await page.waitForURL(`**/${org}/onboarding`, { timeout: 15_000 });
      console.log("setup done:", page.url());
    }
    await ctx.close();
  }

  if (want("login") || want("issues") || want("issue") || want("events")) await signedInShots();
  if (wantsProductShots()) await productShots();
} finally {
  await browser.close();
  console.log(saved.join("\n"));
}

async function signedInShots() {
  // Sign in once through the form, reuse the session for both themes.
  const loginCtx = await browser.newContext({ viewport, colorScheme: "light" });
  const lp = await loginCtx.newPage();
  await lp.goto(`${base}/login`);
  if (want("login")) {
    await shot(lp, "login-light");
    await lp.emulateMedia({ colorScheme: "dark" });
    await shot(lp, "login-dark");
    await lp.emulateMedia({ colorScheme: "light" });
  }
  await lp.getByLabel("Email").fill(email);
  await lp.getByLabel("Password").fill(password);
  await lp.getByRole("button", { name: "Sign in" }).click();
  await lp.waitForURL((u) => !u.pathname.startsWith("/login"), { timeout: 15_000 });
  const storageState = await loginCtx.storageState();
  await loginCtx.close();

  // The triage screens: stream (plain, with a selection and the bulk bar, with search suggestions),
  // issue page (viewport and full page), events list; PHONE=1 adds 390 px wide shots.
  const sizes = [["", viewport]];
  if (process.env.PHONE === "1") sizes.push(["-phone", { width: 390, height: 844 }]);
  for (const [size, dims] of sizes) {
    for (const theme of ["light", "dark"]) {
      const ctx = await browser.newContext({ viewport: dims, colorScheme: theme, storageState });
      const page = await ctx.newPage();
      await page.goto(`${base}/${org}/issues`);
      const empty = (await page.getByText(/Waiting for the first event|No projects yet/).count()) > 0;
      if (want("issues")) await shot(page, `issues${empty ? "-empty" : (process.env.SUFFIX ?? "")}${size}-${theme}`);
      if (!empty && want("issues") && !size) {
        const boxes = page.locator("tbody input[type=checkbox]");
        await boxes.nth(1).check();
        await boxes.nth(2).check();
        await page.getByRole("toolbar", { name: "Bulk actions" }).waitFor();
        await shot(page, `issues-selected-${theme}`);
        await page.goto(`${base}/${org}/issues`);
        await page.getByRole("combobox", { name: "Search issues" }).click();
        await page.keyboard.type("level:error envi");
        await page.getByRole("listbox", { name: "Suggestions" }).waitFor();
        await page.keyboard.press("Tab");
        await page.getByRole("listbox", { name: "Suggestions" }).getByRole("option").first().waitFor();
        await shot(page, `issues-search-${theme}`);
      }
      if (!empty && (want("issue") || want("events"))) {
        await page.goto(`${base}/${org}/issues`);
        // ISSUE=<text> picks the row whose title contains it; otherwise the first row.
        const link = process.env.ISSUE
          ? page.locator("tbody a[data-row-link]", { hasText: process.env.ISSUE }).first()
          : page.locator("tbody a[data-row-link]").first();
        await link.click();
        await page.waitForURL(/\/issues\/\d+/);
        // Let the lazily loaded chart draw before the shot.
        await page.waitForTimeout(600);
        if (want("issue")) {
          await shot(page, `issue${size}-${theme}`);
          if (!size) await shot(page, `issue-full-${theme}`, { fullPage: true });
        }
        if (want("events")) {
          await page.goto(`${page.url()}/events`);
          await shot(page, `events${size}-${theme}`);
        }
      }
      await ctx.close();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Projects, settings, onboarding, releases, feedback (light + dark; PHONE=1 adds 390 px wide shots).

// A function, not a const: the shots above run before this part of the module is evaluated.
function wantsProductShots() {
  return ["onboarding", "projects", "settings", "releases", "release", "feedback", "uptime", "replays", "replay", "replay-issue"].some(
    want,
  );
}

async function productShots() {
  const project = process.env.PROJECT ?? "web";
  const loginCtx = await browser.newContext({ viewport, colorScheme: "light" });
  const lp = await loginCtx.newPage();
  await lp.goto(`${base}/login`);
  await lp.getByLabel("Email").fill(email);
  await lp.getByLabel("Password").fill(password);
  await lp.getByRole("button", { name: "Sign in" }).click();
  await lp.waitForURL((u) => !u.pathname.startsWith("/login"), { timeout: 15_000 });
  const storageState = await loginCtx.storageState();
  await loginCtx.close();

  let release = process.env.RELEASE;
  const sizes = [["", viewport]];
  if (process.env.PHONE === "1") sizes.push(["-phone", { width: 390, height: 844 }]);
  for (const [suffix, size] of sizes) {
    for (const theme of ["light", "dark"]) {
      const ctx = await browser.newContext({ viewport: size, colorScheme: theme, storageState });
      const page = await ctx.newPage();
      const at = async (path, name, opts = {}) => {
        await page.goto(`${base}/${org}${path}`);
        await shot(page, `${name}${suffix}-${theme}`, opts);
      };
      if (want("onboarding")) {
        await at("/onboarding", "onboarding-create");
        if (process.env.WAITING) await at(`/onboarding?project=${process.env.WAITING}`, "onboarding-waiting");
        await at(`/onboarding?project=${project}`, "onboarding-done");
      }
      if (want("projects")) await at("/projects", "projects");
      if (want("settings")) {
        const s = `/projects/${project}/settings`;
        await at(s, "settings-general", { fullPage: true });
        await at(`${s}/keys`, "settings-keys", { fullPage: true });
        await at(`${s}/setup`, "settings-setup");
        await at(`${s}/scrubbing`, "settings-scrubbing");
        await at(`${s}/usage`, "settings-usage", { fullPage: true });
      }
      if (want("releases")) await at("/releases", "releases");
      if (want("release")) {
        if (!release) {
          await page.goto(`${base}/${org}/releases`);
          const first = page.getByTestId("release-row").first().getByRole("link").first();
          release = (await first.count()) > 0 ? ((await first.textContent()) ?? "").trim() : undefined;
        }
        if (release) await at(`/releases/${encodeURIComponent(release)}`, "release", { fullPage: true });
      }
      if (want("feedback")) await at("/feedback", "feedback");
      if (want("replays")) await at("/replays", "replays");
      if (want("replay") || want("replay-issue")) {
        await page.goto(`${base}/${org}/replays`);
        const first = page.getByTestId("replay-row").first().getByRole("link").first();
        if ((await first.count()) > 0) {
          await page.goto(new URL((await first.getAttribute("href")) ?? "", base).toString());
          const player = page.getByTestId("replay-player").first();
          await player.waitFor();
          await page.waitForFunction(() => document.querySelector("[data-testid=replay-player]")?.getAttribute("data-complete") === "true");
          if (want("replay")) await shot(page, `replay${suffix}-${theme}`, { fullPage: true });
          const issue = page.getByTestId("replay-errors").getByRole("link").first();
          if (want("replay-issue") && (await issue.count()) > 0) {
            await page.goto(new URL((await issue.getAttribute("href")) ?? "", base).toString());
            await page.waitForFunction(
              () =>
                document.querySelector("[data-testid=event-replay] [data-testid=replay-player]")?.getAttribute("data-complete") === "true",
            );
            await page.getByTestId("event-replay").scrollIntoViewIfNeeded();
            await shot(page, `replay-issue${suffix}-${theme}`);
          }
        }
      }
      if (want("uptime")) {
        await at("/monitors", "uptime-list", { fullPage: true });
        const form = page.getByTestId("uptime-create");
        if ((await form.count()) > 0) {
          if (!(await form.isVisible())) await page.locator("summary", { hasText: "New uptime check" }).click();
          await shot(page, `uptime-create${suffix}-${theme}`, { fullPage: true });
        }
        const links = page.getByTestId("uptime-list").locator("tbody a");
        const first = process.env.UPTIME ? links.filter({ hasText: process.env.UPTIME }).first() : links.first();
        if ((await first.count()) > 0) {
          await page.goto(new URL((await first.getAttribute("href")) ?? "", base).toString());
          await shot(page, `uptime-check${suffix}-${theme}`, { fullPage: true });
        }
      }
      await ctx.close();
    }
  }
}
