import { chromium } from "playwright-core";
import { startServer } from "./test/helpers/server";

const server = await startServer();
try {
  await server.cli("user", "create", "--email", "ada@example.com", "--password", "correct horse battery", "--org", "acme", "--name", "Ada Lovelace");
  const token = await server.cli("token", "create", "--email", "ada@example.com", "--scopes", "org:read,project:read,project:write,event:read,event:write,member:read,member:write");
  const dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript"));
  const api = (p: string, init: RequestInit = {}) => fetch(`${server.url}/api/0/${p}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } }).then((r) => r.json());
  for (const name of ["Frontend", "Payments"]) console.log(await api("organizations/acme/teams/", { method: "POST", body: JSON.stringify({ name }) }));
  const store = (message: string, type: string) => fetch(`${server.url}/api${dsn.pathname}/store/`, { method: "POST", headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` }, body: JSON.stringify({ platform: "javascript", exception: { values: [{ type, value: message }] } }) });
  await store("cart.total is undefined", "TypeError");
  await store("Payment provider timed out after 30000 ms", "TimeoutError");
  let issues: Array<{ id: string; title: string }> = [];
  for (let i = 0; i < 100 && issues.length < 2; i++) { issues = await api("projects/acme/web/issues/?query="); await new Promise((r) => setTimeout(r, 200)); }
  const teams = (await api("organizations/acme/teams/")) as Array<{ id: string; slug: string }>;
  console.log(await api(`organizations/acme/issues/${issues[0]?.id}/`, { method: "PUT", body: JSON.stringify({ assignedTo: `team:${teams.find((t) => t.slug === "payments")?.id}` }) }).then((x) => x.assignedTo));
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  for (const theme of ["light", "dark"] as const) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: theme });
    const page = await ctx.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL(/\/acme\//);
    await page.goto(`${server.url}/acme/issues`);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `/tmp/shots/stream-team-${theme}.png` });
    await page.goto(`${server.url}/acme/issues/${issues[1]?.id}`);
    await page.keyboard.press("a");
    await page.waitForSelector("text=Assign to");
    await page.screenshot({ path: `/tmp/shots/assign-team-${theme}.png` });
    await ctx.close();
  }
  await browser.close();
} finally {
  await server.stop();
}
