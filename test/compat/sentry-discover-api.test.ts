/**
 * Sentry's query API and the remaining REST shapes (issue 28), on both databases against the built
 * server: `/organizations/{org}/events/` over errors, spans and logs (fields, tags, aggregates,
 * query, sort, paging with `Link`, Sentry's 400s), `/events-stats/`, `issue.category:feedback` and
 * `:error` on the org issue list, and `DELETE /projects/{org}/{project}/` (204, data gone, the DSN
 * refused).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Db, openDb } from "../../src/storage/db.js";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

type Json = Record<string, unknown>;

describe.each(await dialects())("Sentry's query API on %s", (dialect) => {
  let server: TestServer;
  let db: Db;
  let token: string;
  let readOnlyToken: string;
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

  const events = (query: string, bearer = token) => api("GET", `/api/0/organizations/acme/events/?${query}`, undefined, bearer);

  async function store(project: string, payload: Json): Promise<Response> {
    const dsn = dsns[project] as URL;
    return fetch(`${dsn.protocol}//${dsn.host}/api/${dsn.pathname.slice(1)}/store/`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
      body: JSON.stringify(payload),
    });
  }

  /** One error event; resolves once readable, with its issue's id and short id. */
  async function send(project: string, message: string, extra: Json = {}) {
    const eventId = crypto.randomUUID().replace(/-/g, "");
    const res = await store(project, {
      event_id: eventId,
      platform: "node",
      fingerprint: [message],
      exception: { values: [{ type: "QueryError", value: message }] },
      ...extra,
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
    const issue = (await api("GET", `/api/0/organizations/acme/issues/${ev.groupID}/`)).body;
    return { eventId, issueId: ev.groupID as string, shortId: issue.shortId as string };
  }

  beforeAll(async () => {
    server = await startServer({ dialect });
    db = openDb(server.db.config);
    await server.cli("user", "create", "--email", "dev@example.com", "--password", "correct horse battery", "--org", "acme");
    await server.cli("user", "create", "--email", "eve@example.com", "--password", "correct horse battery", "--org", "other");
    for (const name of ["shop", "batch", "doomed"]) {
      dsns[name] = new URL(await server.cli("project", "create", "--org", "acme", "--name", name, "--platform", "node"));
    }
    const scopes = "org:read,project:read,project:write,event:read,event:write";
    token = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", scopes);
    readOnlyToken = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "org:read,project:read,event:read");
    otherToken = await server.cli("token", "create", "--email", "eve@example.com", "--scopes", scopes);
    for (const p of (await api("GET", "/api/0/organizations/acme/projects/")).body as Json[]) projectIds[p.slug as string] = String(p.id);
  }, 300_000);
  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  test("errors: columns, tags, issue short ids, query, sort, paging and Sentry's 400s", async () => {
    const a1 = await send("shop", "cart broke", {
      tags: { flavor: "sour" },
      user: { id: "u1", email: "ann@example.com" },
      environment: "prod",
    });
    await send("shop", "cart broke", { tags: { flavor: "sweet" }, user: { id: "u2", email: "bo@example.com" }, environment: "prod" });
    await send("shop", "cart broke", { tags: { flavor: "sour" }, user: { id: "u1", email: "ann@example.com" }, environment: "staging" });
    const b = await send("batch", "job failed", { environment: "prod", level: "warning" });

    const fields = [
      "id",
      "title",
      "project",
      "timestamp",
      "issue",
      "issue.id",
      "level",
      "environment",
      "user.email",
      "tags[flavor]",
      "flavor",
    ];
    const rows = await events(
      `${fields.map((f) => `field=${encodeURIComponent(f)}`).join("&")}&query=${encodeURIComponent(`issue:${a1.shortId}`)}&sort=-timestamp&statsPeriod=1h`,
    );
    expect(rows.status).toBe(200);
    expect(rows.body.data).toHaveLength(3);
    expect(rows.body.data.every((r: Json) => r.issue === a1.shortId && r.project === "shop" && r.title === "QueryError: cart broke")).toBe(
      true,
    );
    expect(rows.body.data.map((r: Json) => r["tags[flavor]"]).sort()).toEqual(["sour", "sour", "sweet"]);
    expect(rows.body.data[0].flavor).toBe(rows.body.data[0]["tags[flavor]"]);
    expect(rows.body.data[0]).toMatchObject({ "issue.id": Number(a1.issueId), level: "error" });
    expect(rows.body.data[0].timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(rows.body.meta.fields).toMatchObject({ id: "string", timestamp: "date", "issue.id": "integer", "tags[flavor]": "string" });

    // Tag filter, free text, environment parameter, project parameter and project: term.
    const sour = await events(`field=id&field=user.email&query=${encodeURIComponent("flavor:sour cart")}&environment=prod`);
    expect(sour.body.data).toEqual([{ id: a1.eventId, "user.email": "ann@example.com" }]);
    const batchOnly = await events(`field=id&field=level&project=${projectIds.batch}`);
    expect(batchOnly.body.data).toEqual([{ id: b.eventId, level: "warning" }]);
    expect((await events("field=id&query=project:batch")).body.data).toEqual([{ id: b.eventId }]);
    expect((await events("field=id&query=!project:shop%20!project:doomed")).body.data).toEqual([{ id: b.eventId }]);

    // Aggregates group by the other fields; sort by an aggregate.
    const grouped = await events("field=issue&field=count()&field=count_unique(user)&field=last_seen()&sort=-count()");
    expect(grouped.status).toBe(200);
    expect(grouped.body.data.slice(0, 2)).toEqual([
      expect.objectContaining({ issue: a1.shortId, "count()": 3, "count_unique(user)": 2 }),
      expect.objectContaining({ issue: b.shortId, "count()": 1, "count_unique(user)": 0 }),
    ]);
    expect(grouped.body.meta.fields).toMatchObject({ "count()": "integer", "last_seen()": "date" });
    expect((await events("field=count()&query=flavor:sour")).body.data).toEqual([{ "count()": 2 }]);

    // Paging: per_page and Sentry's cursor, followed from the Link header.
    const first = await events("field=id&field=timestamp&per_page=2&sort=-timestamp");
    expect(first.body.data).toHaveLength(2);
    const next = /<([^>]+)>; rel="next"; results="true"; cursor="0:2:0"/.exec(first.headers.get("link") ?? "");
    expect(next).not.toBeNull();
    const second = await api(
      "GET",
      new URL((next as RegExpExecArray)[1] as string).pathname + new URL((next as RegExpExecArray)[1] as string).search,
    );
    expect(second.body.data).toHaveLength(2);
    expect(second.body.data.map((r: Json) => r.id)).not.toContain(first.body.data[0].id);
    expect(second.headers.get("link")).toContain('rel="next"; results="false"');

    // Sentry's 400s: unknown functions, sorts outside the fields, datasets, no field.
    for (const q of [
      "field=nope()",
      "field=id&sort=-count()",
      "field=id&dataset=profiles",
      "query=x",
      "field=count_unique()",
      "field=avg(title)",
    ]) {
      const r = await events(q);
      expect(r.status, q).toBe(400);
      expect(typeof r.body.detail, q).toBe("string");
      expect(r.body.error.code, q).toBe("validation_failed");
    }
    expect((await events("field=id&query=%22unterminated")).status).toBe(400);

    // Another organization sees none of it.
    expect([403, 404]).toContain((await events("field=id", otherToken)).status);
    const theirs = await api("GET", "/api/0/organizations/other/events/?field=id&field=title", undefined, otherToken);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    const foreignProject = await api(
      "GET",
      `/api/0/organizations/other/events/?field=id&project=${projectIds.shop}`,
      undefined,
      otherToken,
    );
    expect(foreignProject.body.data).toEqual([]);
  });

  test("bounded queries (issue 39): 6,000 nested parentheses are refused at once, /readyz answers meanwhile, wildcards cannot backtrack", async () => {
    const nested = `${"(".repeat(6000)}word${")".repeat(6000)}`;
    const evil = [
      `/api/0/organizations/acme/events/?field=title&query=${encodeURIComponent(nested)}`,
      `/api/0/organizations/acme/events-stats/?query=${encodeURIComponent(nested)}`,
      `/api/0/organizations/acme/issues/?query=${encodeURIComponent(nested)}`,
    ];
    // Any reader may send it: the read-only token. All at once, with /readyz among them.
    const [ready, ...answers] = await Promise.all([
      fetch(`${server.url}/readyz`),
      ...evil.map((p) => api("GET", p, undefined, readOnlyToken)),
    ]);
    expect(ready?.status).toBe(200);
    for (const r of answers) {
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_query");
      expect(r.body.error.position).toBe(4000);
      expect(r.body.detail).toMatch(/longer than 4000 characters/);
    }
    // Short enough, but nested past the bound: refused where the eleventh parenthesis opens.
    const deep = await events(`field=title&query=${encodeURIComponent(`${"(".repeat(11)}word`)}`, readOnlyToken);
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatchObject({ code: "invalid_query", position: 10 });
    const many = await events(`field=title&query=${encodeURIComponent(Array.from({ length: 51 }, (_, i) => `w${i}`).join(" "))}`);
    expect(many.status).toBe(400);
    expect(many.body.detail).toMatch(/more than 50 terms/);
    const longField = await events(`field=${"x".repeat(201)}`);
    expect(longField.status).toBe(400);
    expect(longField.body.error.code).toBe("validation_failed");

    // `title:*a*a…*b` against a title of a's: as a regular expression this backtracked for tens of
    // seconds a row; matched by segments it is an ordinary query. Within the bounds, the words match.
    await send("shop", "a".repeat(60));
    const stars = await events(`field=title&query=${encodeURIComponent(`title:${"*a".repeat(30)}*b`)}&statsPeriod=1h`);
    expect(stars.status).toBe(200);
    expect(stars.body.data).toEqual([]);
    const plain = await events(`field=title&query=${encodeURIComponent(`title:${"*a".repeat(30)}* aaaa`)}&statsPeriod=1h`);
    expect(plain.body.data.map((r: Json) => r.title)).toEqual([`QueryError: ${"a".repeat(60)}`]);
  });

  test("events-stats: count() and count_unique(user) per interval, several axes keyed by name", async () => {
    await send("batch", "stats one", { user: { id: "s1" } });
    await send("batch", "stats one", { user: { id: "s2" } });
    const q = `project=${projectIds.batch}&query=${encodeURIComponent("stats")}&statsPeriod=1h&interval=5m`;
    const one = await api("GET", `/api/0/organizations/acme/events-stats/?yAxis=count()&${q}`);
    expect(one.status).toBe(200);
    const total = (one.body.data as Array<[number, Array<{ count: number }>]>).reduce((n, [, v]) => n + (v[0]?.count ?? 0), 0);
    expect(total).toBe(2);
    expect(one.body.data.length).toBeGreaterThanOrEqual(12);
    expect(one.body.data[1][0] - one.body.data[0][0]).toBe(300);
    expect(one.body.end - one.body.start).toBe(3600);
    const two = await api("GET", `/api/0/organizations/acme/events-stats/?yAxis=count()&yAxis=count_unique(user)&${q}`);
    const sum = (axis: string) =>
      (two.body[axis].data as Array<[number, Array<{ count: number }>]>).reduce((n, [, v]) => n + (v[0]?.count ?? 0), 0);
    expect(sum("count()")).toBe(2);
    expect(sum("count_unique(user)")).toBe(2);
    // Top events: one series per title, Sentry's {"<title>": {data, order}} (Grafana's data source asks it so).
    const top = await api("GET", `/api/0/organizations/acme/events-stats/?yAxis=count()&topEvents=5&field=title&${q}`);
    expect(top.status).toBe(200);
    expect(Object.values(top.body).every((g) => typeof (g as { order?: unknown }).order === "number")).toBe(true);
    const topTotal = Object.values(top.body as Record<string, { data: Array<[number, Array<{ count: number }>]> }>)
      .flatMap((g) => g.data)
      .reduce((n, [, v]) => n + (v[0]?.count ?? 0), 0);
    expect(topTotal).toBe(2);
    expect((await api("GET", `/api/0/organizations/acme/events-stats/?yAxis=count()&topEvents=11&field=title&${q}`)).status).toBe(400);
    expect((await api("GET", `/api/0/organizations/acme/events-stats/?yAxis=title&${q}`)).status).toBe(400);
  });

  test("spans and logs datasets read what the SDKs sent in envelopes", async () => {
    const dsn = dsns.shop as URL;
    const trace = crypto.randomUUID().replace(/-/g, "");
    const t0 = Date.now() / 1000;
    const body = [
      JSON.stringify({ event_id: crypto.randomUUID().replace(/-/g, "") }),
      JSON.stringify({ type: "transaction" }),
      JSON.stringify({
        type: "transaction",
        transaction: "POST /pay",
        start_timestamp: t0,
        timestamp: t0 + 0.2,
        contexts: { trace: { trace_id: trace, span_id: "1".repeat(16), op: "http.server", status: "ok" } },
        spans: [
          {
            span_id: "2".repeat(16),
            parent_span_id: "1".repeat(16),
            op: "db.query",
            description: "SELECT 1",
            start_timestamp: t0 + 0.01,
            timestamp: t0 + 0.06,
          },
        ],
      }),
      JSON.stringify({ type: "log", item_count: 2, content_type: "application/vnd.sentry.items.log+json" }),
      JSON.stringify({
        version: 2,
        items: [
          { timestamp: t0 + 0.1, level: "warn", body: "psp slow", trace_id: trace },
          { timestamp: t0 + 0.12, level: "info", body: "paid", trace_id: trace },
        ],
      }),
    ].join("\n");
    const res = await fetch(`${dsn.protocol}//${dsn.host}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`, {
      method: "POST",
      body,
    });
    expect(res.status).toBe(200);
    const spans = await eventually(
      async () => {
        const r = await events(
          `dataset=spans&field=id&field=span.op&field=span.description&field=span.duration&field=transaction&field=trace&query=trace:${trace}&sort=-span.duration`,
        );
        return r.body.data?.length === 2 ? r.body : undefined;
      },
      30_000,
      "spans",
    );
    expect(spans.data[1]).toMatchObject({
      id: "2".repeat(16),
      "span.op": "db.query",
      "span.description": "SELECT 1",
      transaction: "POST /pay",
      trace,
    });
    expect(spans.data[1]["span.duration"]).toBeCloseTo(50, -1);
    expect(spans.meta).toMatchObject({ fields: { "span.duration": "duration" }, units: { "span.duration": "millisecond" } });
    const avg = await events(`dataset=spansIndexed&field=span.op&field=count()&field=avg(span.duration)&query=trace:${trace}&sort=span.op`);
    expect(avg.body.data.map((r: Json) => [r["span.op"], r["count()"]])).toEqual([
      ["db.query", 1],
      ["http.server", 1],
    ]);

    // The `sentry` CLI's and sentry-cli's log list fields, with a severity filter.
    const logs = await events(
      `dataset=ourlogs&field=sentry.item_id&field=trace&field=severity&field=timestamp&field=message&query=${encodeURIComponent(`trace:${trace}`)}&sort=-timestamp`,
    );
    expect(logs.status).toBe(200);
    expect(logs.body.data.map((r: Json) => [r.message, r.severity])).toEqual([
      ["paid", "info"],
      ["psp slow", "warn"],
    ]);
    expect(logs.body.data[0]["sentry.item_id"]).toMatch(/^[0-9a-f]{32}$/);
    const byId = await events(`dataset=logs&field=message&query=sentry.item_id:${logs.body.data[1]["sentry.item_id"]}`);
    expect(byId.body.data).toEqual([{ message: "psp slow" }]);
    expect((await events(`dataset=logs&field=count()&query=severity:warn%20trace:${trace}`)).body.data).toEqual([{ "count()": 1 }]);

    // Sentry self-hosted's integration tests ask exactly these.
    const selfHostedLogs = await events(
      `dataset=ourlogs&field=sentry.item_id&field=project.id&field=trace&field=severity_number&field=severity&field=timestamp&field=timestamp_precise&field=observed_timestamp&field=message&project=${projectIds.shop}&statsPeriod=1h`,
    );
    expect(selfHostedLogs.body.data[0]).toMatchObject({
      "project.id": Number(projectIds.shop),
      trace,
      severity: "info",
      severity_number: 9,
      message: "paid",
    });
    expect(selfHostedLogs.body.data[0].observed_timestamp).toMatch(/^\d{4}-/);
    expect(selfHostedLogs.body.data[0].timestamp_precise).toBeGreaterThan(1e18);
    expect((await events(`dataset=spans&field=id&project=${projectIds.shop}&statsPeriod=1h`)).body.data.length).toBeGreaterThan(0);
  });

  test("issue.category: feedback lists user feedback as Sentry's feedback issues (the SDK's and the REST reports); error lists errors only", async () => {
    // Sentry self-hosted's own user-feedback test: @sentry/node's captureFeedback, then the issue
    // list by category and the issuePlatform dataset.
    const dir = path.join(process.cwd(), ".tmp", `feedback-sdk-${dialect}-${process.pid}`);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "run.mjs");
    fs.writeFileSync(
      file,
      [
        'import * as Sentry from "@sentry/node";',
        "Sentry.init({ dsn: process.env.SENTRY_DSN, sendDefaultPii: true });",
        'Sentry.captureFeedback({ message: "I love your startup!", name: "John Doe", email: "john@example.com", url: "https://example.com" });',
        "await Sentry.flush(10000);",
      ].join("\n"),
    );
    try {
      await promisify(execFile)(process.execPath, [file], { env: { ...process.env, SENTRY_DSN: dsns.batch?.href ?? "" }, timeout: 60_000 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const fromSdk = await eventually(
      async () => {
        const r = await api("GET", "/api/0/organizations/acme/issues/?query=issue.category%3Afeedback");
        return r.status === 200 && r.body.length > 0 ? r.body : undefined;
      },
      30_000,
      "feedback issue",
    );
    expect(fromSdk).toEqual([
      expect.objectContaining({
        issueCategory: "feedback",
        issueType: "feedback",
        title: "User Feedback",
        status: "unresolved",
        project: expect.objectContaining({ slug: "batch" }),
        metadata: expect.objectContaining({ message: "I love your startup!", name: "John Doe", contact_email: "john@example.com" }),
      }),
    ]);
    const occurrences = await events(
      `dataset=issuePlatform&field=message&field=title&field=timestamp&project=${projectIds.batch}&statsPeriod=1h`,
    );
    expect(occurrences.status).toBe(200);
    expect(occurrences.body.data).toEqual([expect.objectContaining({ message: "I love your startup!", title: "User Feedback" })]);

    // A report sent over REST for an event is listed too, newest first.
    const { eventId, shortId } = await send("shop", "feedback source");
    const created = await api("POST", "/api/0/projects/acme/shop/user-feedback/", {
      event_id: eventId,
      name: "Ann",
      email: "ann@example.com",
      comments: "the cart is broken",
    });
    expect(created.status).toBe(200);
    const list = await api("GET", "/api/0/organizations/acme/issues/?query=issue.category:feedback");
    expect(list.body.map((i: Json) => (i.metadata as Json).message)).toEqual(["the cart is broken", "I love your startup!"]);
    expect(list.body[0].metadata).toMatchObject({ associated_event_id: eventId, contact_email: "ann@example.com" });
    // Not a number: a client acting on it must not reach an unrelated issue.
    expect(list.body[0].id).not.toMatch(/^\d+$/);
    expect((await api("GET", `/api/0/organizations/acme/issues/${list.body[0].id}/`)).status).toBe(404);
    expect(
      (await api("GET", `/api/0/organizations/acme/issues/?query=issue.category:feedback&project=${projectIds.shop}`)).body,
    ).toHaveLength(1);
    expect((await api("GET", "/api/0/organizations/acme/issues/?query=issue.category:feedback%20is:resolved")).body).toEqual([]);
    expect((await api("GET", "/api/0/organizations/acme/issues/?query=issue.category:feedback%20startup")).body).toHaveLength(1);
    expect((await api("GET", "/api/0/organizations/acme/issues/?query=issue.category:feedback%20nothing-like-it")).body).toEqual([]);
    expect((await api("GET", "/api/0/organizations/other/issues/?query=issue.category:feedback", undefined, otherToken)).body).toEqual([]);

    const errors = (await api("GET", "/api/0/organizations/acme/issues/?query=issue.category:error&limit=100")).body as Json[];
    expect(errors.map((i) => i.shortId)).toContain(shortId);
    expect(errors.every((i) => /^\d+$/.test(i.id as string))).toBe(true);
    expect((await api("GET", "/api/0/organizations/acme/issues/?query=issue.category:cron")).body).toEqual([]);
    const notFeedback = (await api("GET", "/api/0/organizations/acme/issues/?query=!issue.category:feedback&limit=100")).body as Json[];
    expect(notFeedback.map((i) => i.shortId)).toContain(shortId);
  });

  test("DELETE a project: 204, its events, issues and keys are gone, its DSN is refused; viewers of the table are refused", async () => {
    const { eventId, issueId } = await send("doomed", "doomed error");
    const id = Number(projectIds.doomed);
    expect((await api("DELETE", "/api/0/projects/acme/doomed/", undefined, readOnlyToken)).status).toBe(403);
    expect((await api("DELETE", "/api/0/projects/other/doomed/", undefined, otherToken)).status).toBe(404);
    expect([403, 404]).toContain((await api("DELETE", "/api/0/projects/acme/doomed/", undefined, otherToken)).status);
    const del = await api("DELETE", "/api/0/projects/acme/doomed/");
    expect(del.status).toBe(204);
    expect((await api("GET", "/api/0/projects/acme/doomed/")).status).toBe(404);
    expect((await api("GET", `/api/0/projects/acme/doomed/events/${eventId}/`)).status).toBe(404);
    expect((await api("GET", `/api/0/organizations/acme/issues/${issueId}/`)).status).toBe(404);
    expect((await events(`field=id&project=${id}`)).body.data).toEqual([]);
    expect((await api("DELETE", "/api/0/projects/acme/doomed/")).status).toBe(404);
    for (const table of ["events", "issues", "project_keys", "issue_tag_values", "team_projects"] as const) {
      const rows = await db.kysely.selectFrom(table).select("project_id").where("project_id", "=", id).execute();
      expect(rows, table).toEqual([]);
    }
    const refused = await eventually(
      async () => {
        const r = await store("doomed", { event_id: crypto.randomUUID().replace(/-/g, ""), message: "after" });
        return r.status >= 400 && r.status < 500 ? r.status : undefined;
      },
      30_000,
      "DSN refused",
    );
    expect(refused).toBeGreaterThanOrEqual(400);
    // The other projects are untouched.
    expect((await api("GET", "/api/0/projects/acme/shop/")).status).toBe(200);
  });
});
