/**
 * The Sentry-compatible REST subset against the real server on both databases, with the CLI for
 * setup and the real `sentry-cli` binary as a client.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, ROOT, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

const execFileP = promisify(execFile);

describe.each(await dialects())("REST API on %s", (dialect) => {
  let server: TestServer;
  let token: string;
  let dsn: string;
  const auth = () => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    server = await startServer({ dialect });
    await server.cli("user", "create", "--email", "dev@example.com", "--password", "correct horse battery", "--org", "acme");
    await server.cli("user", "create", "--email", "other@example.com", "--password", "correct horse battery", "--org", "globex");
    dsn = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript");
    await server.cli("project", "create", "--org", "globex", "--name", "secret-app");
    token = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "org:read,project:read,event:read");
    // the form the account page issues and the README shows
    expect(token).toMatch(/^sntryu_[0-9a-f]{64}$/);
    await server.cli("send-test-event", "--dsn", dsn, "--message", "Widget 42 failed to render");
  });
  afterAll(async () => server?.stop());

  test("issues list in Sentry's shape, with ?query=", async () => {
    const issues = await eventually(
      async () => {
        const res = await fetch(`${server.url}/api/0/projects/acme/web/issues/`, { headers: auth() });
        const body = (await res.json()) as Array<Record<string, unknown>>;
        return res.ok && body.length > 0 ? body : undefined;
      },
      30_000,
      "an issue",
    );
    const issue = issues[0] as Record<string, unknown>;
    expect(issue).toMatchObject({
      shortId: "WEB-1",
      title: "Error: Widget 42 failed to render",
      count: "1",
      status: "unresolved",
      level: "error",
    });
    expect(typeof issue.id).toBe("string");
    expect(issue.userCount).toBe(0);
    expect(Date.parse(issue.firstSeen as string)).toBeGreaterThan(0);
    expect(Date.parse(issue.lastSeen as string)).toBeGreaterThan(0);
    expect(issue.metadata).toMatchObject({ type: "Error", value: "Widget 42 failed to render" });
    expect(issue.culprit).toEqual(expect.any(String));

    const resolved = await fetch(`${server.url}/api/0/projects/acme/web/issues/?query=is:resolved`, { headers: auth() });
    expect(await resolved.json()).toEqual([]);
    const text = await fetch(`${server.url}/api/0/projects/acme/web/issues/?query=${encodeURIComponent("Widget")}`, { headers: auth() });
    expect(((await text.json()) as unknown[]).length).toBe(1);
    const bad = await fetch(`${server.url}/api/0/projects/acme/web/issues/?query=${encodeURIComponent('is:"open')}`, { headers: auth() });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_query");
  });

  test("issue detail, latest event and event by id", async () => {
    const [issue] = (await (await fetch(`${server.url}/api/0/projects/acme/web/issues/`, { headers: auth() })).json()) as Array<{
      id: string;
    }>;
    const detail = await fetch(`${server.url}/api/0/organizations/acme/issues/${issue?.id}/`, { headers: auth() });
    expect(detail.status).toBe(200);
    expect(await detail.json()).toMatchObject({ id: issue?.id, shortId: "WEB-1" });

    const latest = await fetch(`${server.url}/api/0/organizations/acme/issues/${issue?.id}/events/latest/`, { headers: auth() });
    expect(latest.status).toBe(200);
    const event = (await latest.json()) as Record<string, unknown>;
    expect(event.eventID).toMatch(/^[0-9a-f]{32}$/);
    expect(event.exception).toMatchObject({ values: [{ type: "Error", value: "Widget 42 failed to render" }] });
    expect(event.tags).toEqual(expect.arrayContaining([{ key: "source", value: "send-test-event" }]));

    const byId = await fetch(`${server.url}/api/0/projects/acme/web/events/${event.eventID}/`, { headers: auth() });
    expect(byId.status).toBe(200);
    expect(await byId.json()).toMatchObject({ eventID: event.eventID, groupID: issue?.id });
  });

  test("no token → 401; another org → 404; missing scope → 403; all with catalogue codes", async () => {
    const anon = await fetch(`${server.url}/api/0/projects/acme/web/issues/`);
    expect(anon.status).toBe(401);
    expect(((await anon.json()) as { error: { code: string; request_id: string } }).error).toMatchObject({
      code: "unauthenticated",
      request_id: expect.any(String),
    });

    const cross = await fetch(`${server.url}/api/0/projects/globex/secret-app/issues/`, { headers: auth() });
    expect(cross.status).toBe(404);
    expect(((await cross.json()) as { error: { code: string } }).error.code).toBe("not_found");

    const weak = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "org:read");
    const denied = await fetch(`${server.url}/api/0/projects/acme/web/issues/`, { headers: { authorization: `Bearer ${weak}` } });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe("forbidden");

    const forged = await fetch(`${server.url}/api/0/projects/acme/web/issues/`, {
      headers: { authorization: "Bearer errata_not-a-real-token" },
    });
    expect(forged.status).toBe(401);
  });

  test("sentry-cli issues list pointed at Errata lists the issues", async () => {
    const bin = path.join(ROOT, "node_modules", ".bin", "sentry-cli");
    const { stdout } = await execFileP(bin, ["issues", "list", "--org", "acme", "--project", "web"], {
      env: { ...process.env, SENTRY_URL: server.url, SENTRY_AUTH_TOKEN: token, SENTRYCLI_SKIP_DOWNLOAD: "1", SENTRY_LOG_LEVEL: "warn" },
      timeout: 30_000,
    });
    expect(stdout).toContain("WEB-1");
    expect(stdout).toContain("Widget 42 failed to render");
  });

  test("health endpoints", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ database: true, migrations: true });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain("errata_");
  });
});
