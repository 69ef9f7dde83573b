/**
 * Sentry's REST shapes that scripts and dashboards read (issue 10), on both databases against the
 * built server: events in Sentry's serializer shape, issue event lists, tags and hashes, project
 * events, tolerant update bodies, bulk updates by search, the releases API beyond what sentry-cli
 * sends, Link headers from PUBLIC_URL, and the JSON 404 under /api/0/.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

type Json = Record<string, unknown>;

describe.each(await dialects())("Sentry REST shapes on %s", (dialect) => {
  let server: TestServer;
  let token: string;
  let readToken: string;
  let dsn: URL;

  async function api(method: string, pathname: string, body?: unknown, bearer = token, base?: string) {
    const res = await fetch(`${base ?? server.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return {
      status: res.status,
      // biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, checked by the assertions
      body: (text ? JSON.parse(text) : null) as any,
      headers: res.headers,
    };
  }

  /** One event through the store endpoint; resolves to its issue id once digested. */
  async function send(message: string, extra: Json = {}): Promise<string> {
    const eventId = crypto.randomUUID().replace(/-/g, "");
    const res = await fetch(`${dsn.protocol}//${dsn.host}/api/${dsn.pathname.slice(1)}/store/`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
      body: JSON.stringify({
        event_id: eventId,
        platform: "node",
        fingerprint: [message],
        exception: {
          values: [
            {
              type: "ShapeError",
              value: message,
              stacktrace: { frames: [{ function: "go", filename: "app.js", lineno: 3, in_app: true }] },
            },
          ],
        },
        breadcrumbs: { values: [{ timestamp: Date.now() / 1000, category: "ui.click", message: "clicked save" }] },
        request: { url: "https://shop.example/cart", method: "POST" },
        tags: { feature: "cart" },
        contexts: { runtime: { name: "node", version: "22.1.0" } },
        ...extra,
      }),
    });
    expect(res.status).toBe(200);
    const ev = await eventually(
      async () => {
        const r = await api("GET", `/api/0/projects/acme/web/events/${eventId}/`);
        return r.status === 200 ? r.body : undefined;
      },
      30_000,
      `event ${eventId}`,
    );
    return ev.groupID as string;
  }

  beforeAll(async () => {
    server = await startServer({ dialect });
    await server.cli("user", "create", "--email", "dev@example.com", "--password", "correct horse battery", "--org", "acme");
    dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "node"));
    await server.cli("project", "create", "--org", "acme", "--name", "bulk", "--platform", "node");
    token = await server.cli(
      "token",
      "create",
      "--email",
      "dev@example.com",
      "--scopes",
      "org:read,project:read,project:releases,event:read,event:write",
    );
    readToken = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "org:read,project:read,event:read");
  });
  afterAll(async () => server?.stop());

  test("events in Sentry's serializer shape; issues carry platform; issue events, tags, values and hashes", async () => {
    const issueId = await send("shape one", { release: "shop@2.0.0" });
    const latest = (await api("GET", `/api/0/organizations/acme/issues/${issueId}/events/latest/`)).body;
    expect(latest).toMatchObject({
      title: "ShapeError: shape one",
      platform: "node",
      groupID: issueId,
      contexts: { runtime: { name: "node", version: "22.1.0" } },
    });
    expect(latest.tags).toEqual(expect.arrayContaining([{ key: "feature", value: "cart" }]));
    const entries = latest.entries as Array<{ type: string; data: Json }>;
    expect(entries.map((e) => e.type)).toEqual(["exception", "breadcrumbs", "request"]);
    expect(entries[0]?.data.values).toEqual([expect.objectContaining({ type: "ShapeError", value: "shape one" })]);
    expect(entries[1]?.data.values).toEqual([expect.objectContaining({ message: "clicked save" })]);
    expect(entries[2]?.data).toMatchObject({ url: "https://shop.example/cart", method: "POST" });

    const issue = (await api("GET", `/api/0/organizations/acme/issues/${issueId}/`)).body;
    expect(issue.platform).toBe("node");

    const list = await api("GET", `/api/0/organizations/acme/issues/${issueId}/events/`);
    expect(list.body).toEqual([expect.objectContaining({ eventID: latest.eventID, title: "ShapeError: shape one" })]);
    expect(list.body[0]).not.toHaveProperty("entries");
    const full = await api("GET", `/api/0/organizations/acme/issues/${issueId}/events/?full=true`);
    expect((full.body[0] as Json).entries).toEqual(entries);

    const tags = (await api("GET", `/api/0/organizations/acme/issues/${issueId}/tags/`)).body as Json[];
    expect(tags).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          key: "release",
          totalValues: 1,
          topValues: [expect.objectContaining({ value: "shop@2.0.0", count: 1 })],
        }),
      ]),
    );
    const values = (await api("GET", `/api/0/organizations/acme/issues/${issueId}/tags/feature/values/`)).body;
    expect(values).toEqual([expect.objectContaining({ key: "feature", value: "cart", count: 1 })]);
    expect((await api("GET", `/api/0/organizations/acme/issues/${issueId}/tags/nope/values/`)).status).toBe(404);
    const hashes = (await api("GET", `/api/0/organizations/acme/issues/${issueId}/hashes/`)).body as Json[];
    expect(hashes.length).toBeGreaterThan(0);
    expect(hashes[0]?.id).toMatch(/^[0-9a-f]+$/);

    const projectEvents = (await api("GET", "/api/0/projects/acme/web/events/")).body as Json[];
    expect(projectEvents.map((e) => e.eventID)).toContain(latest.eventID);
  });

  test("Link headers use PUBLIC_URL, not the request's host; unknown /api/0/ paths answer JSON not_found", async () => {
    await send("linked");
    const viaLocalhost = server.url.replace("127.0.0.1", "localhost");
    const res = await api("GET", "/api/0/projects/acme/web/issues/?limit=1", undefined, token, viaLocalhost);
    expect(res.status).toBe(200);
    const link = res.headers.get("link") ?? "";
    expect(link).toContain(`<${server.url}/api/0/projects/acme/web/issues/`);
    expect(link).not.toContain("localhost");

    for (const p of ["/api/0/nothing/here/", "/api/0/organizations/acme/not-a-thing/"]) {
      const missing = await api("GET", p);
      expect(missing.status).toBe(404);
      expect(missing.headers.get("content-type")).toContain("application/json");
      expect(missing.body.error?.code).toBe("not_found");
    }
  });

  test("update bodies are tolerant: unknown keys ignored, muted means ignored, snooze fields, nulls", async () => {
    const id = await send("tolerant");
    const path = `/api/0/organizations/acme/issues/${id}/`;
    const muted = await api("PUT", path, { status: "muted", snoozeDuration: null, isBookmarked: true, hasSeen: true });
    expect(muted).toMatchObject({ status: 200, body: { status: "ignored" } });
    const snoozed = await api("PUT", path, { status: "ignored", snoozeCount: 50, snoozeWindow: 60, substatus: null });
    expect(snoozed.body).toMatchObject({ status: "ignored", statusDetails: { ignoreCount: 50, ignoreWindow: 60 } });
    expect((await api("PUT", path, { status: "unresolved", snoozeDuration: null, statusDetails: {} })).body.status).toBe("unresolved");
    // Still strict about values.
    const bad = await api("PUT", path, { status: "sleeping" });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe("validation_failed");
  });

  test("bulk update by search without ids: default is:unresolved, ?status= and ?query=, hasMore; read-only token refused", async () => {
    const a = await send("bulk alpha");
    const b = await send("bulk beta");
    const byQuery = await api("PUT", `/api/0/projects/acme/web/issues/?query=${encodeURIComponent("bulk alpha")}`, { status: "resolved" });
    expect(byQuery).toMatchObject({ status: 200, body: { status: "resolved", hasMore: false } });
    expect((await api("GET", `/api/0/organizations/acme/issues/${a}/`)).body.status).toBe("resolved");
    expect((await api("GET", `/api/0/organizations/acme/issues/${b}/`)).body.status).toBe("unresolved");

    const back = await api("PUT", "/api/0/projects/acme/web/issues/?status=resolved", { status: "unresolved", snoozeDuration: null });
    expect(back.status).toBe(200);
    expect((await api("GET", `/api/0/organizations/acme/issues/${a}/`)).body.status).toBe("unresolved");

    const denied = await api("PUT", "/api/0/projects/acme/bulk/issues/", { status: "resolved" }, readToken);
    expect(denied.status).toBe(403);
    // Nothing matches in the empty project: still authorized and validated, 200 with nothing done.
    expect((await api("PUT", "/api/0/projects/acme/bulk/issues/", { status: "resolved" })).body).toMatchObject({ hasMore: false });
    expect((await api("PUT", "/api/0/projects/acme/bulk/issues/", { status: "nope" })).status).toBe(400);
  });

  test("releases: refs stored as sent, previous-with-commits, ?query=, deploy validation, read-only token cannot write", async () => {
    const v1 = "shop@3.0.0";
    const v2 = "shop@3.1.0";
    for (const version of [v1, v2]) {
      expect((await api("POST", "/api/0/organizations/acme/releases/", { version, projects: ["web"], owner: null, extra: 1 })).status).toBe(
        201,
      );
    }
    expect((await api("POST", "/api/0/organizations/acme/releases/", { version: v1, projects: ["web"] })).status).toBe(208);
    const refs = await api("PUT", `/api/0/organizations/acme/releases/${v1}/`, {
      refs: [{ repository: "acme/shop", commit: "a".repeat(40), previousCommit: "b".repeat(40) }],
      ref: "main",
      url: "https://shop.example/releases/3.0.0",
    });
    expect(refs.body).toMatchObject({
      commitCount: 1,
      ref: "main",
      url: "https://shop.example/releases/3.0.0",
      lastCommit: { id: "a".repeat(40) },
    });
    expect(((await api("GET", `/api/0/organizations/acme/releases/${v2}/previous-with-commits/`)).body as Json).version).toBe(v1);
    expect((await api("GET", `/api/0/organizations/acme/releases/${v1}/previous-with-commits/`)).body).toEqual({});

    const found = (await api("GET", "/api/0/organizations/acme/releases/?query=3.1")).body as Json[];
    expect(found.map((r) => r.version)).toEqual([v2]);

    const archived = await api("POST", "/api/0/organizations/acme/releases/", { version: v2, projects: [], status: "archived" });
    expect(archived.body.status).toBe("archived");

    const badDeploy = await api("POST", `/api/0/organizations/acme/releases/${v1}/deploys/`, { name: "no env" });
    expect(badDeploy.status).toBe(400);
    expect(badDeploy.body.error?.code).toBe("validation_failed");
    expect((await api("POST", "/api/0/organizations/acme/releases/nope-1/deploys/", { environment: "prod" })).status).toBe(404);

    expect((await api("PUT", `/api/0/organizations/acme/releases/${v1}/`, { ref: "x" }, readToken)).status).toBe(403);
    expect((await api("DELETE", `/api/0/organizations/acme/releases/${v1}/`, undefined, readToken)).status).toBe(403);
    expect((await api("GET", `/api/0/organizations/acme/releases/${v1}/`, undefined, readToken)).status).toBe(200);

    const dated = await api("PUT", `/api/0/organizations/acme/releases/${v1}/`, { dateReleased: "not a date" });
    expect(dated.status).toBe(400);

    // A release named by events gets newGroups / lastEvent.
    await send("release counted", { release: v2 });
    const r2 = (await api("GET", `/api/0/organizations/acme/releases/${v2}/`)).body;
    expect(r2).toMatchObject({ newGroups: 1, projects: [expect.objectContaining({ slug: "web", newGroups: 1 })] });
    expect(Date.parse(r2.lastEvent as string)).toBeGreaterThan(0);
    expect(Date.parse(r2.firstEvent as string)).toBeGreaterThan(0);
  });

  test("user feedback over REST: create, list, validation, scopes", async () => {
    const eventId = crypto.randomUUID();
    const made = await api("POST", "/api/0/projects/acme/web/user-feedback/", {
      event_id: eventId,
      name: "Ada",
      email: "ada@example.com",
      comments: "The cart emptied itself.",
    });
    expect(made).toMatchObject({
      status: 200,
      body: { eventID: eventId.replace(/-/g, ""), name: "Ada", comments: "The cart emptied itself." },
    });
    const list = (await api("GET", "/api/0/projects/acme/web/user-feedback/")).body as Json[];
    expect(list.map((r) => r.comments)).toContain("The cart emptied itself.");
    expect((await api("POST", "/api/0/projects/acme/web/user-feedback/", { event_id: "nope", comments: "x" })).status).toBe(400);
    const denied = await api("POST", "/api/0/projects/acme/web/user-feedback/", { event_id: eventId, comments: "x" }, readToken);
    expect(denied.status).toBe(403);
  });

  test("projects list and detail in Sentry's shape", async () => {
    const list = (await api("GET", "/api/0/organizations/acme/projects/")).body as Json[];
    expect(list.map((p) => p.slug).sort()).toEqual(["bulk", "web"]);
    const detail = (await api("GET", "/api/0/projects/acme/web/")).body;
    expect(detail).toMatchObject({ slug: "web", platform: "node", organization: { slug: "acme" } });
    expect((await api("GET", "/api/0/projects/acme/nope/")).status).toBe(404);
  });
  test("groupingConfig: unknown configs refused by name, Errata's and Sentry's names applied; grouping-info in Sentry's shape", async () => {
    const admin = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "project:read,project:write,event:read");
    const put = (groupingConfig: string) => api("PUT", "/api/0/projects/acme/bulk/", { groupingConfig }, admin);
    const bad = await put("v9");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("groupingConfig");
    expect(JSON.stringify(bad.body)).toContain("newstyle:2023-01-11");
    expect((await api("GET", "/api/0/projects/acme/bulk/")).body.groupingConfig).toBe("v3");
    expect((await put("newstyle:2019-10-29")).body.groupingConfig).toBe("v2");
    expect((await put("legacy:2019-03-12")).body.groupingConfig).toBe("v1");
    expect((await put("newstyle:2023-01-11")).body.groupingConfig).toBe("v3");

    // The "why grouped here" of a stack-trace event: app and system variants, their hashes the issue's.
    const issueId = await send("grouped how", { fingerprint: undefined });
    const latest = (await api("GET", `/api/0/organizations/acme/issues/${issueId}/events/latest/`)).body;
    const info = await api("GET", `/api/0/projects/acme/web/events/${latest.eventID}/grouping-info/`);
    expect(info.status).toBe(200);
    const hashes = ((await api("GET", `/api/0/organizations/acme/issues/${issueId}/hashes/`)).body as Json[]).map((h) => h.id);
    const contributing = Object.values(info.body as Record<string, Json>).filter((v) => v.contributes);
    expect(contributing.length).toBeGreaterThan(0);
    for (const v of contributing) expect(hashes).toContain(v.hash);
    expect(info.body.app).toMatchObject({ type: "component", description: "exception — in-app frames", config: { id: "v3" } });
    expect((info.body.app.component as { values: string[] }).values).toContain("type=ShapeError");
    expect((await api("GET", `/api/0/projects/acme/web/events/${"0".repeat(32)}/grouping-info/`)).status).toBe(404);
    expect((await api("GET", `/api/0/projects/acme/bulk/events/${latest.eventID}/grouping-info/`)).status).toBe(404);
  });

  test("usage stats from the outcome counters: project stats and stats_v2, with their errors named", async () => {
    await send("counted for usage");
    const v2 = await api(
      "GET",
      "/api/0/organizations/acme/stats_v2/?field=sum(quantity)&groupBy=outcome&groupBy=category&statsPeriod=1d&interval=1h",
      undefined,
      readToken,
    );
    expect(v2.status).toBe(200);
    expect(v2.body.intervals.length).toBeGreaterThanOrEqual(24);
    const accepted = (v2.body.groups as Array<{ by: Json; totals: Record<string, number>; series: Record<string, number[]> }>).find(
      (g) => g.by.outcome === "accepted" && g.by.category === "error",
    );
    expect(accepted?.totals["sum(quantity)"]).toBeGreaterThanOrEqual(1);
    expect(accepted?.series["sum(quantity)"].reduce((a, b) => a + b, 0)).toBe(accepted?.totals["sum(quantity)"]);

    const since = Math.floor(Date.now() / 1000) - 3 * 3600;
    const legacy = await api("GET", `/api/0/projects/acme/web/stats/?stat=received&since=${since}&resolution=1h`, undefined, readToken);
    expect(legacy.status).toBe(200);
    expect(legacy.body.length).toBeGreaterThanOrEqual(3);
    expect((legacy.body as Array<[number, number]>).reduce((n, [, c]) => n + c, 0)).toBeGreaterThanOrEqual(1);

    const bad = await api("GET", "/api/0/organizations/acme/stats_v2/?field=sum(quantity)&groupBy=color", undefined, readToken);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "validation_failed", fields: [expect.objectContaining({ field: "groupBy" })] });
    expect((await api("GET", "/api/0/organizations/acme/stats_v2/?field=count()&groupBy=outcome", undefined, readToken)).status).toBe(400);
    expect(
      (await api("GET", "/api/0/organizations/other-org/stats_v2/?field=sum(quantity)&groupBy=outcome", undefined, readToken)).status,
    ).toBe(404);
  });
});
