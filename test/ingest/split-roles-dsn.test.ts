/**
 * DSNs that work in a split deployment (issue 39 item 5), on both databases: an ingest-only
 * process and a web+worker process share one database. With PUBLIC_INGEST_URL the DSN that
 * `errata project create` prints (and the keys API and page show) names the ingest process, and the
 * official @sentry/node SDK delivers through it. Without it the DSN names PUBLIC_URL, and a proxy
 * routing by path — the regular expression of docs/scaling.md's nginx and Caddy configurations,
 * read from the document — carries the SDK's envelope to ingest. The web process itself answers an
 * envelope with a JSON 404 `ingest_not_served`, not its HTML page.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CLI, eventually, ROOT, startServer, type TestServer } from "../helpers/server.js";
import { createTestDatabase, dialects, type TestDatabase } from "../helpers/test-db.js";

const execFileP = promisify(execFile);
const PASSWORD = "correct horse battery";

/** The ingest paths as docs/scaling.md routes them (nginx `location ~` and Caddy `path_regexp` must agree). */
function documentedIngestPaths(): RegExp {
  const doc = fs.readFileSync(path.join(ROOT, "docs/scaling.md"), "utf8");
  const nginx = /location ~ (\^\/api\/\S+) \{/.exec(doc)?.[1];
  const caddy = /@ingest path_regexp (\S+)/.exec(doc)?.[1];
  expect(nginx, "the nginx ingest location in docs/scaling.md").toBeDefined();
  expect(caddy).toBe(nginx);
  return new RegExp(nginx as string);
}

interface PathProxy {
  url: string;
  /** upstream chosen per request path, in arrival order */
  routed: Array<{ path: string; to: "ingest" | "web" }>;
  close(): Promise<void>;
}

/** A reverse proxy as the documented one: ingest paths to one upstream, everything else to the other. */
async function startPathProxy(ingestPaths: RegExp, upstream: () => { ingest: string; web: string }): Promise<PathProxy> {
  const routed: PathProxy["routed"] = [];
  const server = http.createServer((req, res) => {
    const to = ingestPaths.test((req.url ?? "/").split("?")[0] as string) ? "ingest" : "web";
    routed.push({ path: req.url ?? "/", to });
    const target = new URL(req.url ?? "/", upstream()[to]);
    const fwd = http.request(
      target,
      { method: req.method, headers: { ...req.headers, "x-forwarded-for": req.socket.remoteAddress ?? "" } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    fwd.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(fwd);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    routed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The official SDK in its own process, sending one exception through `dsn`. */
async function sendWithSdk(dsn: string, message: string): Promise<void> {
  const dir = path.join(ROOT, ".tmp", `split-dsn-${process.pid}-${Math.random().toString(36).slice(2)}`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "send.mjs");
  fs.writeFileSync(
    file,
    [
      'import * as Sentry from "@sentry/node";',
      "Sentry.init({ dsn: process.env.DSN, release: 'split@1.0.0' });",
      "Sentry.captureException(new Error(process.env.MESSAGE));",
      "await Sentry.close(10000);",
    ].join("\n"),
  );
  try {
    await execFileP(process.execPath, [file], { env: { ...process.env, DSN: dsn, MESSAGE: message }, timeout: 45_000 });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(await dialects())("DSNs in a split deployment on %s", (dialect) => {
  let db: TestDatabase;
  let proxy: PathProxy;
  let ingest: TestServer;
  let web: TestServer;
  let token: string;

  const api = async (pathname: string) => {
    const res = await fetch(`${proxy.url}${pathname}`, { headers: { authorization: `Bearer ${token}` } });
    // biome-ignore lint/suspicious/noExplicitAny: REST bodies of several shapes, checked by the assertions
    return { status: res.status, body: (await res.json()) as any };
  };

  /** Resolves once the web process lists an event of `project` whose title holds `word` (the worker digested it). */
  const arrived = (project: string, word: string) =>
    eventually(
      async () => {
        const r = await api(`/api/0/projects/acme/${project}/events/`);
        return r.status === 200 && (r.body as Array<{ title: string }>).some((e) => e.title.includes(word));
      },
      45_000,
      `the event "${word}" in ${project}`,
    );

  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    proxy = await startPathProxy(documentedIngestPaths(), () => ({ ingest: ingest.url, web: web.url }));
    ingest = await startServer({ db, env: { ERRATA_ROLES: "ingest" } });
    web = await startServer({
      db,
      env: { ERRATA_ROLES: "web,worker", PUBLIC_URL: proxy.url, PUBLIC_INGEST_URL: ingest.url, TRUSTED_PROXIES: "127.0.0.1" },
    });
    await web.cli("user", "create", "--email", "owner@example.com", "--password", PASSWORD, "--org", "acme");
    token = await web.cli("token", "create", "--email", "owner@example.com", "--scopes", "org:read,project:read,event:read");
  }, 180_000);
  afterAll(async () => {
    await web?.stop();
    await ingest?.stop();
    await proxy?.close();
    await db?.drop();
  });

  test("PUBLIC_INGEST_URL: the printed DSN names the ingest process, @sentry/node delivers through it; the keys API and page show it", async () => {
    const printed = await web.cli("project", "create", "--org", "acme", "--name", "direct", "--platform", "node");
    const dsn = new URL(printed);
    expect(dsn.host).toBe(new URL(ingest.url).host);

    await sendWithSdk(printed, "split-direct-delivered");
    await arrived("direct", "split-direct-delivered");
    expect(proxy.routed.some((r) => r.to === "ingest")).toBe(false);

    const keys = await api("/api/0/projects/acme/direct/keys/");
    expect(keys.body[0].dsn).toMatchObject({
      public: printed,
      security: `${ingest.url}/api/${dsn.pathname.slice(1)}/security/?sentry_key=${dsn.username}`,
      crons: `${ingest.url}/api/${dsn.pathname.slice(1)}/cron/___MONITOR_SLUG___/${dsn.username}/`,
    });

    // The keys page, signed in through the proxy (PUBLIC_URL) as a browser would.
    const signIn = await fetch(`${proxy.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: proxy.url },
      body: JSON.stringify({ email: "owner@example.com", password: PASSWORD }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const page = await fetch(`${proxy.url}/acme/projects/direct/settings/keys`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(printed);

    // The web process refuses SDK traffic in JSON, naming the cause; the ingest process takes it.
    const envelope = `${JSON.stringify({ event_id: "c".repeat(32), dsn: printed })}\n{"type":"event"}\n{"message":"to web"}\n`;
    const atWeb = await fetch(`${web.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`, { method: "POST", body: envelope });
    expect(atWeb.status).toBe(404);
    expect(atWeb.headers.get("content-type")).toMatch(/json/);
    expect((await atWeb.json()).error).toMatchObject({ code: "ingest_not_served", message: expect.stringMatching(/PUBLIC_INGEST_URL/) });
  });

  test("one public address: without PUBLIC_INGEST_URL the DSN names PUBLIC_URL and the documented path routing carries the SDK to ingest", async () => {
    // The operator's shell without PUBLIC_INGEST_URL: the DSN takes PUBLIC_URL (the proxy).
    const { PUBLIC_INGEST_URL: _unset, ...env } = web.env;
    const { stdout } = await execFileP(process.execPath, [CLI, "project", "create", "--org", "acme", "--name", "proxied"], {
      cwd: ROOT,
      env: env as NodeJS.ProcessEnv,
    });
    const printed = stdout.trim();
    expect(new URL(printed).host).toBe(new URL(proxy.url).host);

    await sendWithSdk(printed, "split-proxied-delivered");
    await arrived("proxied", "split-proxied-delivered");
    const envelopes = proxy.routed.filter((r) => /\/envelope\//.test(r.path));
    expect(envelopes.length).toBeGreaterThan(0);
    expect(envelopes.every((r) => r.to === "ingest")).toBe(true);
  });
});
