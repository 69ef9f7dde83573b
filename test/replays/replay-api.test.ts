/**
 * Sentry's replay REST API (issue 40) against the built server, on both databases: the org list
 * with Sentry's query language, sorts, time window, fields and cursor; one replay by org and by
 * project; the recording segments as metadata and as the downloaded rrweb arrays, paged; the
 * replay-count the issue list shows (counts and ids); deletion by the right role only, with its
 * blobs; and nothing of another organization, ever.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openDb } from "../../src/storage/db";
import { upsertMember } from "../../src/storage/orgs/orgs";
import { postEnvelope, segmentEnvelope, sendReplay } from "../helpers/replay-envelopes";
import { type Seeded, seedAcme, sendEnvelope, USER_EMAIL } from "../helpers/sentry-clients";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { signInCookie } from "../helpers/server-actions";
import { dialects } from "../helpers/test-db";

describe.each(await dialects())("Sentry's replay API on %s", (dialect) => {
  let server: TestServer;
  let s: Seeded;
  let replayId: string;
  let quietId: string;
  let viewerToken: string;
  let otherToken: string;

  beforeAll(async () => {
    server = await startServer({ dialect });
    s = await seedAcme(server);
    replayId = await sendReplay(s.dsn, { errorIds: [s.eventId], user: { id: "u-7", email: "shopper@example.com" } });
    // A shorter replay without errors, started earlier: for sorts and filters.
    quietId = crypto.randomUUID().replace(/-/g, "");
    const t0 = Date.now() - 60_000;
    await postEnvelope(s.dsn, segmentEnvelope(quietId, 0, t0, { start: t0, urls: ["https://shop.example/about"] }));
    await eventually(
      async () => {
        const r = await s.api("GET", "/api/0/organizations/acme/replays/?statsPeriod=1h");
        const rows = (r.body?.data ?? []) as Array<{ id: string; count_segments: number }>;
        return rows.find((x) => x.id === replayId)?.count_segments === 2 && rows.some((x) => x.id === quietId);
      },
      30_000,
      "both replays digested",
    );
    // A viewer of acme (created as owner of an org of their own, then added to acme as a viewer).
    await server.cli("user", "create", "--email", "vic@example.com", "--password", "correct horse battery", "--org", "vicorg");
    const db = openDb(server.db.config);
    try {
      const acme = await db.kysely.selectFrom("organizations").select("id").where("slug", "=", "acme").executeTakeFirstOrThrow();
      const vic = (await db.kysely
        .selectFrom("user" as never)
        .select("id" as never)
        .where("email" as never, "=", "vic@example.com" as never)
        .executeTakeFirstOrThrow()) as { id: string };
      await upsertMember(db.kysely, { orgId: Number(acme.id), userId: vic.id, role: "viewer", now: Date.now() });
    } finally {
      await db.close();
    }
    viewerToken = await server.cli(
      "token",
      "create",
      "--email",
      "vic@example.com",
      "--scopes",
      "event:read,event:write,org:read,project:read",
    );
    await server.cli(
      "user",
      "create",
      "--email",
      "gus@globex.example",
      "--password",
      "correct horse battery",
      "--name",
      "Gus",
      "--org",
      "globex",
    );
    otherToken = await server.cli(
      "token",
      "create",
      "--email",
      "gus@globex.example",
      "--scopes",
      "event:read,event:write,org:read,project:read",
    );
  }, 300_000);
  afterAll(async () => server?.stop());

  const as = async (token: string, method: string, pathname: string) => {
    const res = await fetch(`${server.url}${pathname}`, { method, headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };

  test("the org list: Sentry's shape, filters in the issues' query language, sorts and a cursor", async () => {
    const all = await s.api("GET", "/api/0/organizations/acme/replays/?statsPeriod=24h&sort=-started_at");
    expect(all.status).toBe(200);
    const row = all.body.data.find((r: { id: string }) => r.id === replayId);
    expect(row).toMatchObject({
      project_id: s.projectId,
      count_segments: 2,
      count_errors: 1,
      error_ids: [s.eventId],
      count_dead_clicks: 1,
      count_rage_clicks: 1,
      urls: ["https://shop.example/checkout"],
      browser: { name: "Chrome" },
      os: { name: "Linux" },
      user: { id: "u-7", email: "shopper@example.com", display_name: "shopper@example.com" },
      releases: ["shop@2.0.0"],
      environment: "production",
      replay_type: "session",
      is_archived: false,
    });
    expect(row.duration).toBeGreaterThanOrEqual(9);
    expect(all.body.data.map((r: { id: string }) => r.id)).toEqual([replayId, quietId]);
    const ids = async (q: string) =>
      ((await s.api("GET", `/api/0/organizations/acme/replays/?statsPeriod=24h&${q}`)).body.data as Array<{ id: string }>).map((r) => r.id);
    expect(await ids("query=count_errors:>0")).toEqual([replayId]);
    expect(await ids("query=count_rage_clicks:>=1")).toEqual([replayId]);
    expect(await ids(`query=${encodeURIComponent("url:*about*")}`)).toEqual([quietId]);
    expect(await ids(`query=${encodeURIComponent("user.email:shopper@example.com")}`)).toEqual([replayId]);
    expect(await ids(`query=${encodeURIComponent("duration:>7s")}`)).toEqual([replayId]);
    expect(await ids(`query=${encodeURIComponent(`error_id:${s.eventId}`)}`)).toEqual([replayId]);
    expect(await ids(`query=${encodeURIComponent("!count_errors:>0 environment:production")}`)).toEqual([quietId]);
    expect(await ids("sort=-count_errors&per_page=1")).toEqual([replayId]);
    expect(await ids("sort=started_at")).toEqual([quietId, replayId]);
    expect(await ids(`project=${s.projectId}&field=id&field=count_errors`)).toHaveLength(2);
    // One per page: the Link header's next cursor reaches the second.
    const first = await s.api("GET", "/api/0/organizations/acme/replays/?statsPeriod=24h&per_page=1");
    const link = await fetch(`${server.url}/api/0/organizations/acme/replays/?statsPeriod=24h&per_page=1`, {
      headers: { authorization: `Bearer ${s.token}` },
    }).then((r) => r.headers.get("link") ?? "");
    const cursor = /rel="next"; results="true"; cursor="([^"]+)"/.exec(link)?.[1];
    expect(first.body.data).toHaveLength(1);
    expect(cursor).toBeDefined();
    expect(await ids(`per_page=1&cursor=${cursor}`)).toEqual([quietId]);
    const bad = await s.api("GET", `/api/0/organizations/acme/replays/?query=${encodeURIComponent("count_errors:lots")}`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("invalid_query");
    expect((await s.api("GET", "/api/0/organizations/acme/replays/?sort=-nonsense")).status).toBe(400);
  });

  test("one replay, by org and by project; its recording segments, paged", async () => {
    const byOrg = await s.api("GET", `/api/0/organizations/acme/replays/${replayId}/`);
    expect(byOrg.status).toBe(200);
    expect(byOrg.body.data).toMatchObject({ id: replayId, count_segments: 2 });
    const byProject = await s.api("GET", `/api/0/projects/acme/web/replays/${replayId}/`);
    expect(byProject.body.data.id).toBe(replayId);
    expect((await s.api("GET", `/api/0/projects/acme/${s.projectId}/replays/${replayId}/`)).status).toBe(200);
    // Sentry answers the rrweb arrays with or without `?download` (the CLI omits it).
    const plain = await s.api("GET", `/api/0/projects/acme/web/replays/${replayId}/recording-segments/`);
    const download = await s.api("GET", `/api/0/projects/acme/web/replays/${replayId}/recording-segments/?download`);
    expect(plain.body).toEqual(download.body);
    expect(download.body).toHaveLength(2);
    expect(download.body[0][0]).toMatchObject({ type: 4, data: { href: "https://shop.example/checkout" } });
    expect(
      download.body[1].some((e: { data?: { payload?: { category?: string } } }) => e.data?.payload?.category === "ui.slowClickDetected"),
    ).toBe(true);
    // The project's scrubbing ran before storage: the fetch's bearer token and password are gone.
    expect(JSON.stringify(download.body)).not.toContain("hunter2");
    // One segment: its metadata, its events as JSON (Sentry's download), and as stored (zlib) for
    // Errata's player.
    const segUrl = `${server.url}/api/0/projects/acme/web/replays/${replayId}/recording-segments/0/`;
    expect((await s.api("GET", `/api/0/projects/acme/web/replays/${replayId}/recording-segments/0/`)).body).toMatchObject({
      data: { replayId, segmentId: 0, projectId: s.projectId },
    });
    expect((await s.api("GET", `/api/0/projects/acme/web/replays/${replayId}/recording-segments/0/?download`)).body).toEqual(
      download.body[0],
    );
    const raw = await fetch(`${segUrl}?download=true&encoding=zlib`, { headers: { authorization: `Bearer ${s.token}` } });
    expect(raw.headers.get("content-type")).toBe("application/octet-stream");
    expect(JSON.parse(zlib.inflateSync(Buffer.from(await raw.arrayBuffer())).toString())).toEqual(download.body[0]);
    expect((await fetch(`${segUrl.replace("/0/", "/7/")}?download`, { headers: { authorization: `Bearer ${s.token}` } })).status).toBe(404);
    const page1 = await fetch(`${server.url}/api/0/projects/acme/web/replays/${replayId}/recording-segments/?download=true&per_page=1`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    const next = /rel="next"; results="true"; cursor="([^"]+)"/.exec(page1.headers.get("link") ?? "")?.[1];
    expect(((await page1.json()) as unknown[]).length).toBe(1);
    const page2 = await s.api(
      "GET",
      `/api/0/projects/acme/web/replays/${replayId}/recording-segments/?download=true&per_page=1&cursor=${next}`,
    );
    expect(page2.body[0][0].timestamp).toBeGreaterThan(download.body[0][0].timestamp);
    expect((await s.api("GET", `/api/0/organizations/acme/replays/${"f".repeat(32)}/`)).status).toBe(404);
    expect((await s.api("GET", "/api/0/organizations/acme/replays/not-an-id/")).status).toBe(404);
  });

  test("replay-count: an issue's replays as a count and, with returnIds, their ids", async () => {
    const counted = await s.api("GET", `/api/0/organizations/acme/replay-count/?query=issue.id:[${s.issueId}]&statsPeriod=90d&project=-1`);
    expect(counted.body).toEqual({ [s.issueId]: 1 });
    const ids = await s.api(
      "GET",
      `/api/0/organizations/acme/replay-count/?query=issue.id:[${s.issueId}]&returnIds=true&data_source=discover&statsPeriod=90d&project=-1`,
    );
    expect(ids.body).toEqual({ [s.issueId]: [replayId] });
    const byReplay = await s.api("GET", `/api/0/organizations/acme/replay-count/?query=replay_id:[${replayId},${"a".repeat(32)}]`);
    expect(byReplay.body).toEqual({ [replayId]: 1 });
  });

  test("the trace page links the replays that recorded the trace to the player", async () => {
    const traceId = crypto.randomUUID().replace(/-/g, "");
    const shared = crypto.randomUUID().replace(/-/g, "");
    const t0 = Date.now() - 30_000;
    await postEnvelope(s.dsn, segmentEnvelope(shared, 0, t0, { start: t0, urls: ["https://shop.example/pay"], traceIds: [traceId] }));
    // The trace itself: one error event in it.
    await sendEnvelope(s.dsn, { fingerprint: ["replay-trace"], contexts: { trace: { trace_id: traceId, span_id: "a".repeat(16) } } });
    const cookie = await signInCookie(server, USER_EMAIL, "correct horse battery");
    const page = await eventually(
      async () => {
        const res = await fetch(`${server.url}/acme/traces/${traceId}`, { headers: { cookie } });
        const html = await res.text();
        return res.status === 200 && html.includes(`/acme/replays/${shared}`) ? html : undefined;
      },
      30_000,
      "the trace page linking the replay",
    );
    expect(page).toContain(shared);
  });

  test("merging and deleting issues take their replays along: the survivor counts both sessions", async () => {
    const otherEvent = await sendEnvelope(s.dsn, { fingerprint: ["replay-merge-other"], message: "another failure" });
    const other = await eventually(
      async () => {
        const r = await s.api("GET", `/api/0/projects/acme/web/events/${otherEvent}/`);
        return r.status === 200 ? String(r.body.groupID) : undefined;
      },
      30_000,
      "the other error digested",
    );
    const otherReplay = await sendReplay(s.dsn, { errorIds: [otherEvent] });
    const count = async (issue: string) =>
      (await s.api("GET", `/api/0/organizations/acme/replay-count/?query=issue.id:[${issue}]&returnIds=true&statsPeriod=90d`)).body?.[
        issue
      ] ?? [];
    await eventually(async () => (await count(other)).length === 1, 30_000, "the other replay linked to its issue");
    const merged = await s.api("PUT", `/api/0/projects/acme/web/issues/?id=${s.issueId}&id=${other}`, { merge: 1 });
    expect(merged.status).toBe(200);
    const parent = String(merged.body.merge.parent);
    const child = parent === other ? s.issueId : other;
    expect((await count(parent)).sort()).toEqual([replayId, otherReplay].sort());
    expect(await count(child)).toEqual([]);
    // Deleting the issue leaves the replays, which still list their errors, under no issue.
    expect((await s.api("DELETE", `/api/0/organizations/acme/issues/${parent}/`)).status).toBe(202);
    expect(await count(parent)).toEqual([]);
    const replay = await s.api("GET", `/api/0/organizations/acme/replays/${otherReplay}/`);
    expect(replay.body.data.error_ids).toContain(otherEvent);
  });

  test("another organization learns nothing; a viewer may read but not delete; an admin deletes it and its blobs", async () => {
    expect((await as(otherToken, "GET", `/api/0/organizations/acme/replays/${replayId}/`)).status).toBe(404);
    expect((await as(otherToken, "GET", "/api/0/organizations/globex/replays/?statsPeriod=24h")).body.data).toEqual([]);
    expect((await as(otherToken, "GET", `/api/0/organizations/globex/replays/${replayId}/`)).status).toBe(404);
    expect((await as(otherToken, "GET", `/api/0/organizations/globex/replay-count/?query=issue.id:[${s.issueId}]`)).body).toEqual({});
    expect((await as(viewerToken, "GET", `/api/0/organizations/acme/replays/${replayId}/`)).status).toBe(200);
    expect((await as(viewerToken, "DELETE", `/api/0/projects/acme/web/replays/${replayId}/`)).status).toBe(403);
    expect((await as(otherToken, "DELETE", `/api/0/projects/acme/web/replays/${replayId}/`)).status).toBe(404);
    const dir = path.join(server.env.DATA_DIR, "blobs", "replays", s.projectId, quietId);
    if (dialect === "sqlite") expect(fs.existsSync(dir)).toBe(true);
    expect((await s.api("DELETE", `/api/0/projects/acme/web/replays/${quietId}/`)).status).toBe(204);
    expect((await s.api("GET", `/api/0/organizations/acme/replays/${quietId}/`)).status).toBe(404);
    if (dialect === "sqlite") expect(fs.existsSync(path.join(dir, "0"))).toBe(false);
  });
});
