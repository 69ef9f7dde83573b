/**
 * Sentry's issue API as its clients read it (issue 28), on both databases against the built
 * server: short ids wherever Sentry takes an issue id (REST and the UI's issue URLs), the short-id
 * lookup, the org-level issue list with Sentry's parameters and `stats`, who-am-I, project, org and
 * member shapes, events as Sentry's event API returns them, and Sentry's error bodies.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

type Json = Record<string, unknown>;
const PASSWORD = "correct horse battery";

describe.each(await dialects())("Sentry's issue API on %s", (dialect) => {
  let server: TestServer;
  let token: string;
  let otherToken: string;
  const dsns: Record<string, URL> = {};
  const projectIds: Record<string, string> = {};

  async function api(method: string, pathname: string, body?: unknown, bearer = token) {
    const res = await fetch(`${server.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, checked by the assertions
    return { status: res.status, body: (text ? JSON.parse(text) : null) as any, headers: res.headers };
  }

  /** One event through the store endpoint; resolves once it is readable, with its issue. */
  async function send(project: string, message: string, extra: Json = {}): Promise<{ eventId: string; issueId: string }> {
    const dsn = dsns[project] as URL;
    const eventId = crypto.randomUUID().replace(/-/g, "");
    const res = await fetch(`${dsn.protocol}//${dsn.host}/api/${dsn.pathname.slice(1)}/store/`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
      body: JSON.stringify({
        event_id: eventId,
        platform: "node",
        fingerprint: [message],
        exception: { values: [{ type: "IdError", value: message }] },
        ...extra,
      }),
    });
    expect(res.status).toBe(200);
    const ev = await eventually(
      async () => {
        const r = await api("GET", `/api/0/projects/acme/${project}/events/${eventId}/`);
        return r.status === 200 ? r.body : undefined;
      },
      30_000,
      `event ${eventId}`,
    );
    return { eventId, issueId: ev.groupID as string };
  }

  beforeAll(async () => {
    server = await startServer({ dialect });
    await server.cli("user", "create", "--email", "dev@example.com", "--password", PASSWORD, "--org", "acme");
    await server.cli("user", "create", "--email", "eve@example.com", "--password", PASSWORD, "--org", "other");
    for (const name of ["web", "api-gw"]) {
      dsns[name] = new URL(await server.cli("project", "create", "--org", "acme", "--name", name, "--platform", "node"));
    }
    const scopes = "org:read,project:read,project:write,event:read,event:write,member:read,member:write";
    token = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", scopes);
    otherToken = await server.cli("token", "create", "--email", "eve@example.com", "--scopes", scopes);
    for (const p of (await api("GET", "/api/0/organizations/acme/projects/")).body as Json[]) projectIds[p.slug as string] = String(p.id);
    // Each CLI call starts Node: slow on a busy two-core machine.
  }, 300_000);
  afterAll(async () => server?.stop());

  test("a short id works wherever an issue id does, in any case, and never across organizations", async () => {
    const { eventId, issueId } = await send("api-gw", "short one", { environment: "prod", level: "warning" });
    const issue = (await api("GET", `/api/0/organizations/acme/issues/${issueId}/`)).body;
    const shortId = issue.shortId as string;
    expect(shortId).toMatch(/^API-GW-\d+$/);
    for (const ref of [shortId, shortId.toLowerCase()]) {
      const r = await api("GET", `/api/0/organizations/acme/issues/${ref}/`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: issueId, shortId });
    }
    const base = `/api/0/organizations/acme/issues/${shortId}`;
    expect((await api("GET", `${base}/events/`)).body).toEqual([expect.objectContaining({ eventID: eventId })]);
    for (const which of ["latest", "oldest", "recommended", eventId]) {
      const r = await api("GET", `${base}/events/${which}/`);
      expect(r.status, which).toBe(200);
      expect(r.body).toMatchObject({ eventID: eventId, groupID: issueId, previousEventID: null, nextEventID: null });
    }
    expect((await api("GET", `${base}/events/${"0".repeat(32)}/`)).status).toBe(404);
    expect((await api("GET", `${base}/tags/`)).body).toEqual(expect.arrayContaining([expect.objectContaining({ key: "environment" })]));
    expect((await api("GET", `${base}/tags/environment/values/`)).body).toEqual([expect.objectContaining({ value: "prod", count: 1 })]);
    expect((await api("GET", `${base}/hashes/`)).body).toHaveLength(1);
    expect((await api("POST", `${base}/comments/`, { text: "seen by short id" })).status).toBe(201);
    // Sentry's numComments, on the detail and in the lists.
    expect((await api("GET", `${base}/`)).body.numComments).toBe(1);
    const listed = (await api("GET", `/api/0/organizations/acme/issues/?query=${eventId}`)).body as Json[];
    expect(listed[0]).toMatchObject({ id: issueId, numComments: 1, annotations: [] });
    expect((await api("GET", `${base}/activities/`)).body.activity).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "note", data: expect.objectContaining({ text: "seen by short id" }) })]),
    );
    expect((await api("PUT", `${base}/`, { status: "resolved" })).body).toMatchObject({ id: issueId, status: "resolved" });
    expect((await api("PUT", `${base}/`, { status: "unresolved" })).body).toMatchObject({ status: "unresolved" });

    // Sentry's short-id lookup.
    const lookup = await api("GET", `/api/0/organizations/acme/shortids/${shortId}/`);
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({ organizationSlug: "acme", projectSlug: "api-gw", groupId: issueId, shortId });
    expect(lookup.body.group).toMatchObject({ id: issueId, shortId, project: { slug: "api-gw" } });

    // Unknown ids, junk, and another organization's issue all answer the same 404.
    for (const ref of ["API-GW-99999", "NOPE-1", "not an id"]) {
      expect((await api("GET", `/api/0/organizations/acme/issues/${encodeURIComponent(ref)}/`)).status, ref).toBe(404);
    }
    expect((await api("GET", "/api/0/organizations/acme/shortids/API-GW-99999/")).status).toBe(404);
    expect((await api("GET", `/api/0/organizations/other/issues/${shortId}/`, undefined, otherToken)).status).toBe(404);
    expect((await api("GET", `/api/0/organizations/other/shortids/${shortId}/`, undefined, otherToken)).status).toBe(404);
    expect((await api("GET", `/api/0/organizations/acme/issues/${shortId}/`, undefined, otherToken)).status).toBe(404);
  });

  test("the UI opens an issue by its short id, and the stream's search box takes one", async () => {
    const { issueId } = await send("web", "ui short");
    const shortId = (await api("GET", `/api/0/organizations/acme/issues/${issueId}/`)).body.shortId as string;
    const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "dev@example.com", password: PASSWORD }),
    });
    const cookie = (signIn.headers.getSetCookie().find((c) => c.includes("session_token=")) ?? "").split(";")[0] as string;
    const page = (path: string) => fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
    for (const [path, target] of [
      [`/acme/issues/${shortId}`, `/acme/issues/${issueId}`],
      [`/acme/issues/${shortId.toLowerCase()}/events`, `/acme/issues/${issueId}/events`],
      [`/acme/issues?query=${shortId}`, `/acme/issues/${issueId}`],
    ] as const) {
      const res = await page(path);
      expect([303, 307, 308], path).toContain(res.status);
      expect(new URL(res.headers.get("location") ?? "", server.url).pathname, path).toBe(target);
    }
    expect((await page("/acme/issues/WEB-99999")).status).toBe(404);
    // Signed out: the login page, coming back to the short-id URL.
    const anon = await fetch(`${server.url}/acme/issues/${shortId}`, { redirect: "manual" });
    expect(anon.headers.get("location")).toContain(encodeURIComponent(`/acme/issues/${shortId}`));
  });

  test("the org issue list: projects, environments, time window, category, event id, sort, paging and stats", async () => {
    const web = await send("web", "list web", { environment: "prod" });
    const gw = await send("api-gw", "list gw", { environment: "staging" });
    const sum = (series: Array<[number, number]> | undefined) => (series ?? []).reduce((n, [, c]) => n + c, 0);
    const list = async (qs: string) => {
      const r = await api("GET", `/api/0/organizations/acme/issues/?${qs}`);
      expect(r.status, qs).toBe(200);
      return r;
    };
    const ids = async (qs: string) => ((await list(qs)).body as Json[]).map((i) => i.id);

    expect(await ids("")).toEqual(expect.arrayContaining([web.issueId, gw.issueId]));
    expect(await ids("project=-1")).toEqual(expect.arrayContaining([web.issueId, gw.issueId]));
    const onlyWeb = await ids(`project=${projectIds.web}`);
    expect(onlyWeb).toContain(web.issueId);
    expect(onlyWeb).not.toContain(gw.issueId);
    expect(await ids(`project=${projectIds.web}&project=${projectIds["api-gw"]}`)).toEqual(
      expect.arrayContaining([web.issueId, gw.issueId]),
    );
    expect(await ids("environment=staging")).toEqual([gw.issueId]);
    expect(await ids("environment=prod&environment=staging&query=list")).toEqual(expect.arrayContaining([web.issueId, gw.issueId]));
    expect(await ids("query=is:unresolved issue.category:error list")).toEqual(expect.arrayContaining([web.issueId, gw.issueId]));
    expect(await ids("query=issue.category:feedback")).toEqual([]);
    expect(await ids("statsPeriod=1h&query=list")).toEqual(expect.arrayContaining([web.issueId, gw.issueId]));
    expect(await ids("start=2020-01-01T00:00:00&end=2020-01-02T00:00:00")).toEqual([]);

    // An event id names its issue, whatever else the query says.
    const hit = await list(`query=${gw.eventId}`);
    expect(hit.body.map((i: Json) => i.id)).toEqual([gw.issueId]);
    expect(hit.headers.get("x-sentry-direct-hit")).toBe("1");
    const shortId = (await api("GET", `/api/0/organizations/acme/issues/${gw.issueId}/`)).body.shortId;
    expect(await ids(`query=${shortId}&shortIdLookup=1`)).toEqual([gw.issueId]);

    // Sorts and keyset paging with Sentry's Link header.
    expect((await ids("sort=new&query=list"))[0]).toBe(gw.issueId);
    const first = await list("sort=date&limit=1&query=list");
    expect(first.body).toHaveLength(1);
    const next = /<([^>]+)>; rel="next"; results="true"/.exec(first.headers.get("link") ?? "");
    expect(next).not.toBeNull();
    const second = await api("GET", new URL(next?.[1] as string).pathname + new URL(next?.[1] as string).search);
    expect(second.body).toHaveLength(1);
    expect(second.body[0].id).not.toBe(first.body[0].id);
    for (const sort of ["freq", "user"]) expect(await ids(`sort=${sort}&query=list`)).toHaveLength(2);
    const badSort = await api("GET", "/api/0/organizations/acme/issues/?sort=bogus");
    expect(badSort.status).toBe(400);

    // stats: one series per request, as Sentry answers — 24 hourly buckets of [unix seconds, count]
    // by default, 14 daily with groupStatsPeriod=14d — this event in the last bucket of each.
    const hourly = await eventually(async () => {
      const s = (await list(`query=${web.eventId}`)).body[0]?.stats as Record<string, Array<[number, number]>> | undefined;
      // Summed, not the last bucket: the event may land just before an hour turns.
      return sum(s?.["24h"]) === 1 ? s : undefined;
    });
    expect(Object.keys(hourly)).toEqual(["24h"]);
    expect(hourly["24h"]).toHaveLength(24);
    const [lastHour] = (hourly["24h"] ?? []).at(-1) as [number, number];
    expect(lastHour % 3600).toBe(0);
    expect(lastHour * 1000).toBeLessThanOrEqual(Date.now());
    // A second event of the issue shows in the next answer: series are kept between polls only
    // while the issue's count says they cannot have changed.
    const again = await send("web", "list web", { environment: "prod" });
    expect(again.issueId).toBe(web.issueId);
    await eventually(async () => {
      const s = (await list(`query=${web.eventId}`)).body[0]?.stats as Record<string, Array<[number, number]>> | undefined;
      return sum(s?.["24h"]) === 2 ? s : undefined;
    });
    const daily = (await list(`query=${web.eventId}&groupStatsPeriod=14d`)).body[0].stats as Record<string, Array<[number, number]>>;
    expect(Object.keys(daily)).toEqual(["14d"]);
    expect(daily["14d"]).toHaveLength(14);
    expect(sum(daily["14d"])).toBe(2);
    expect(((daily["14d"] ?? []).at(-1) as [number, number])[0] % 86400).toBe(0);
    const auto = (await list(`query=${web.eventId}&groupStatsPeriod=auto&statsPeriod=14d`)).body[0].stats as Record<string, unknown[]>;
    expect(auto.auto).toHaveLength(14);
    expect((await list(`query=${web.eventId}&groupStatsPeriod=`)).body[0]).not.toHaveProperty("stats");

    // The project-level list as Backstage reads it: ?statsPeriod=24h|14d, then
    // `"14d" in stats ? stats["14d"] : stats["24h"]`.
    const backstage = await api("GET", "/api/0/projects/acme/web/issues/?statsPeriod=24h");
    expect(backstage.body.map((i: Json) => i.id)).toContain(web.issueId);
    expect(backstage.body[0].stats["24h"]).toHaveLength(24);
    expect(backstage.body[0].stats).not.toHaveProperty("14d");
    const backstage14 = await api("GET", "/api/0/projects/acme/web/issues/?statsPeriod=14d");
    expect(backstage14.body[0].stats["14d"]).toHaveLength(14);
  });

  test("whoami, environments, project teams and firstEvent, org dateCreated and links, pending invitations", async () => {
    const { issueId } = await send("web", "shapes", { environment: "canary" });
    const me = await api("GET", "/api/0/auth/");
    expect(me.body).toMatchObject({ email: "dev@example.com", username: "dev@example.com" });
    expect(typeof me.body.id).toBe("string");
    expect((await fetch(`${server.url}/api/0/auth/`)).status).toBe(401);

    const environments = (await api("GET", "/api/0/projects/acme/web/environments/")).body;
    expect(environments).toEqual(expect.arrayContaining([expect.objectContaining({ name: "canary", isHidden: false })]));
    // Sentry's `project_id_or_slug`: the project's id lists the same (it listed none before).
    expect((await api("GET", `/api/0/projects/acme/${projectIds.web}/environments/`)).body).toEqual(environments);
    expect((await api("GET", "/api/0/organizations/acme/environments/")).body).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "canary" })]),
    );

    expect((await api("POST", "/api/0/organizations/acme/teams/", { name: "core" })).status).toBe(201);
    expect((await api("POST", "/api/0/projects/acme/web/teams/core/")).status).toBe(201);
    const project = (await api("GET", "/api/0/projects/acme/web/")).body;
    expect(project.teams).toEqual(expect.arrayContaining([expect.objectContaining({ slug: "core" })]));
    const issue = (await api("GET", `/api/0/organizations/acme/issues/${issueId}/`)).body;
    expect(Date.parse(project.firstEvent)).toBeLessThanOrEqual(Date.parse(issue.firstSeen));
    expect(Number.isNaN(Date.parse(project.dateCreated))).toBe(false);

    // PUT: name, slug and platform; a taken slug is a 409 with Sentry's detail.
    expect((await api("POST", "/api/0/teams/acme/core/projects/", { name: "Old Name", platform: "node" })).status).toBe(201);
    const renamed = await api("PUT", "/api/0/projects/acme/old-name/", {
      name: "New Name",
      slug: "new-name",
      platform: "python",
      isBookmarked: true,
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ slug: "new-name", name: "New Name", platform: "python" });
    expect((await api("GET", "/api/0/projects/acme/new-name/")).body).toMatchObject({ name: "New Name" });
    expect((await api("GET", "/api/0/projects/acme/old-name/")).status).toBe(404);
    const clash = await api("PUT", "/api/0/projects/acme/new-name/", { slug: "web" });
    expect(clash.status).toBe(409);
    expect(clash.body.detail).toEqual(expect.any(String));
    expect((await api("PUT", "/api/0/projects/acme/new-name/", { slug: "Not A Slug" })).status).toBe(400);

    for (const org of [(await api("GET", "/api/0/organizations/acme/")).body, ...(await api("GET", "/api/0/organizations/")).body]) {
      expect(Number.isNaN(Date.parse(org.dateCreated))).toBe(false);
      // PUBLIC_URL, as Sentry self-hosted answers (the MCP server alone gets "" over http: region-url.ts).
      expect(org.links).toEqual({ organizationUrl: server.url, regionUrl: server.url });
    }

    const invite = await api("POST", "/api/0/organizations/acme/members/", {
      email: "new@example.com",
      orgRole: "member",
      sendInvite: false,
    });
    expect(invite.status).toBe(201);
    const members = (await api("GET", "/api/0/organizations/acme/members/")).body as Json[];
    expect(members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: "dev@example.com", pending: false }),
        expect.objectContaining({ email: "new@example.com", pending: true, user: null }),
      ]),
    );
  });

  test("events as Sentry's event API returns them; error bodies with detail; unserved paths 404, wrong methods a JSON 405", async () => {
    const { eventId, issueId } = await send("web", "frames", {
      release: "shop@9.9.9",
      exception: {
        values: [
          {
            type: "IdError",
            value: "frames",
            mechanism: { type: "onerror", handled: false },
            stacktrace: { frames: [{ function: "go", filename: "app.js", lineno: 3, colno: 7, context_line: "go()", in_app: true }] },
          },
        ],
      },
      breadcrumbs: { values: [{ timestamp: 1767225600, category: "ui.click", message: "clicked" }] },
    });
    // The user's report on the event rides along as Sentry's `userReport`.
    const report = await api("POST", "/api/0/projects/acme/web/user-feedback/", {
      event_id: eventId,
      name: "Ada",
      email: "ada@example.com",
      comments: "It broke on checkout.",
    });
    expect(report.status).toBe(200);
    // Sentry's project_id_or_slug: the project's numeric id names it too, within its organization only.
    expect((await api("GET", `/api/0/projects/other/${projectIds.web}/events/${eventId}/`, undefined, otherToken)).status).toBe(404);
    for (const path of [
      `/api/0/projects/acme/web/events/${eventId}/`,
      `/api/0/projects/acme/${projectIds.web}/events/${eventId}/`,
      `/api/0/organizations/acme/issues/${issueId}/events/${eventId}/`,
    ]) {
      const ev = (await api("GET", path)).body;
      const entries = ev.entries as Array<{ type: string; data: { values: Json[] } }>;
      const exc = entries.find((e) => e.type === "exception")?.data.values[0] as Json;
      expect(exc.mechanism).toEqual({ type: "onerror", handled: false });
      expect((exc.stacktrace as { frames: Json[] }).frames[0]).toMatchObject({ lineNo: 3, colNo: 7, inApp: true, context: [[3, "go()"]] });
      expect(entries.find((e) => e.type === "breadcrumbs")?.data.values[0]).toMatchObject({ timestamp: "2026-01-01T00:00:00.000Z" });
      expect(ev.release).toMatchObject({ version: "shop@9.9.9" });
      expect(ev.tags).toEqual(
        expect.arrayContaining([
          { key: "release", value: "shop@9.9.9" },
          { key: "level", value: "error" },
        ]),
      );
      expect(ev.size).toBeGreaterThan(0);
      expect(ev.userReport).toMatchObject({
        eventID: eventId,
        name: "Ada",
        comments: "It broke on checkout.",
        event: { eventID: eventId },
      });
    }
    const other = await send("web", "no report");
    expect((await api("GET", `/api/0/projects/acme/web/events/${other.eventId}/`)).body.userReport).toBeNull();

    const missing = await api("GET", "/api/0/organizations/acme/issues/999999999/");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ detail: expect.any(String), error: { code: "not_found" } });
    const unserved = await api("GET", "/api/0/organizations/acme/no-such-thing/");
    expect(unserved.status).toBe(404);
    expect(unserved.body.detail).toEqual(expect.any(String));
    const seer = await api("GET", `/api/0/organizations/acme/issues/${issueId}/autofix/`);
    expect(seer.status).toBe(404);
    expect(seer.body.detail).toMatch(/not available/);
    const wrongMethod = await api("POST", "/api/0/organizations/acme/issues/");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toMatchObject({ detail: expect.stringContaining("POST"), error: { code: "method_not_allowed" } });
  });
});
