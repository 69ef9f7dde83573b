/**
 * Grafana's official Sentry data source (grafana/sentry-datasource 2.2.5, issue 28), replayed: the
 * plugin is a Go backend, so instead of running Grafana this file sends EXACTLY the requests its
 * `pkg/sentry/*.go` builds — same paths, the same query parameters encoded as Go's
 * `url.Values.Encode` does (keys sorted, `QueryEscape`), `start`/`end` formatted with Go's layouts
 * (without zone for issues, events, spans and stats_v2; RFC 3339 for events-stats), `interval` as
 * `FormatSentryInterval` writes it, its Bearer token and User-Agent, `Link` pagination followed as
 * `FetchWithPagination` follows it — for every query type (Issues, Events, Events Stats, Spans,
 * Spans Stats, Stats, Metrics) and every resource call of the query editor (organizations,
 * projects, tags, span attributes, teams, a team's projects) and the health check.
 *
 * Each answer is decoded as Go's encoding/json decodes it into the struct the plugin unmarshals
 * into (`goDecode` with the struct's fields and JSON types: a string field given a number, a
 * time.Time given something not RFC 3339, an int given a fraction is the error the plugin would
 * show), and events-stats bodies go through a port of the plugin's framer
 * (`ExtractDataSets` → timestamp + `count` fields). Real data behind it: events in two projects
 * and two environments, a transaction with spans, outcome counters; SQLite and PostgreSQL.
 *
 * Metrics (`/metrics/data/`) is a Sentry product Sentry removed and Errata does not serve: the
 * plugin must get Sentry's error body (`detail`), which it shows as the query's error.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Seeded, seedAcme, sendEnvelope } from "../helpers/sentry-clients.js";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

// ---------------------------------------------------------------------------------------------
// Go's side: url.Values.Encode, time.Format, FormatSentryInterval, encoding/json into structs.

/** Go's url.QueryEscape: everything but [A-Za-z0-9-_.~] percent-encoded, space as `+`. */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** url.Values.Encode: keys sorted (byte order), each key's values in the order added. */
function goEncode(params: Array<[string, string]>): string {
  const keys = [...new Set(params.map(([k]) => k))].sort();
  return keys.flatMap((k) => params.filter(([key]) => key === k).map(([, v]) => `${queryEscape(k)}=${queryEscape(v)}`)).join("&");
}

/** time.Format("2006-01-02T15:04:05") of a UTC time (Grafana's backend runs in UTC). */
const goLocal = (ms: number) => new Date(ms).toISOString().slice(0, 19);
/** time.Format("2006-01-02T15:04:05Z07:00") of a UTC time. */
const goRfc3339 = (ms: number) => `${goLocal(ms)}Z`;

/** sentry.FormatSentryInterval. */
function formatSentryInterval(ms: number): string {
  const h = ms / 3_600_000;
  const m = ms / 60_000;
  if (h > 2) return `${Math.round(h)}h`;
  if (m > 2) return `${Math.round(m)}m`;
  return `${Math.round(ms / 1000)}s`;
}

type GoType = "string" | "bool" | "int" | "time" | "any" | { slice: GoType } | { struct: Record<string, GoType> } | { map: GoType };

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * encoding/json's Unmarshal into a Go type: null leaves the zero value, a JSON value of another
 * type is an UnmarshalTypeError, unknown keys are ignored. Returns the Go value (zero values filled).
 */
function goDecode(t: GoType, v: unknown, at: string): unknown {
  const fail = (what: string) => {
    throw new Error(`json: cannot unmarshal ${JSON.stringify(v)?.slice(0, 80)} into Go value ${at} of type ${what}`);
  };
  if (t === "any") return v;
  if (v === null || v === undefined) {
    if (t === "string") return "";
    if (t === "bool") return false;
    if (t === "int") return 0;
    if (t === "time") return null;
    if ("slice" in t) return [];
    if ("map" in t) return {};
    return goDecode(t, {}, at);
  }
  if (t === "string") return typeof v === "string" ? v : fail("string");
  if (t === "bool") return typeof v === "boolean" ? v : fail("bool");
  if (t === "int") return typeof v === "number" && Number.isInteger(v) ? v : fail("int64");
  if (t === "time") return typeof v === "string" && RFC3339.test(v) ? new Date(v) : fail("time.Time (RFC 3339)");
  if ("slice" in t) return Array.isArray(v) ? v.map((x, i) => goDecode(t.slice, x, `${at}[${i}]`)) : fail("slice");
  if (typeof v !== "object" || Array.isArray(v)) return fail("struct/map");
  const obj = v as Record<string, unknown>;
  if ("map" in t) return Object.fromEntries(Object.entries(obj).map(([k, x]) => [k, goDecode(t.map, x, `${at}.${k}`)]));
  return Object.fromEntries(Object.entries(t.struct).map(([k, ft]) => [k, goDecode(ft, obj[k], `${at}.${k}`)]));
}

const idNameSlug: GoType = { struct: { id: "string", name: "string", slug: "string" } };

/** pkg/sentry/orgs.go SentryOrganization */
const SentryOrganization: GoType = {
  struct: {
    dateCreated: "time",
    id: "string",
    isEarlyAdopter: "bool",
    name: "string",
    require2FA: "bool",
    slug: "string",
    status: { struct: { id: "string", name: "string" } },
    avatar: { struct: { avatarType: "string" } },
  },
};
/** pkg/sentry/projects.go SentryProject */
const SentryProject: GoType = {
  struct: {
    dateCreated: "time",
    hasAccess: "bool",
    id: "string",
    isBookmarked: "bool",
    isMember: "bool",
    environments: { slice: "string" },
    name: "string",
    slug: "string",
    team: idNameSlug,
    teams: { slice: idNameSlug },
  },
};
/** pkg/sentry/team.go SentryTeam */
const SentryTeam: GoType = {
  struct: {
    avatar: { struct: { avatarType: "string", avatarUuid: "any" } },
    dateCreated: "time",
    hasAccess: "bool",
    id: "string",
    isMember: "bool",
    isPending: "bool",
    memberCount: "int",
    name: "string",
    projects: { slice: "any" },
    slug: "string",
  },
};
/** pkg/sentry/tags.go SentryTag */
const SentryTag: GoType = { struct: { key: "string", name: "string", totalValues: "int" } };
/** pkg/sentry/attributes.go SentryAttribute */
const SentryAttribute: GoType = { struct: { key: "string", name: "string" } };
/** pkg/sentry/issues.go SentryIssue */
const SentryIssue: GoType = {
  struct: {
    id: "string",
    shortId: "string",
    title: "string",
    count: "string",
    userCount: "int",
    status: "string",
    substatus: "string",
    level: "string",
    type: "string",
    platform: "string",
    firstSeen: "time",
    lastSeen: "time",
    culprit: "string",
    hasSeen: "bool",
    isUnhandled: "bool",
    permalink: "string",
    isPublic: "bool",
    project: { struct: { id: "string", name: "string", slug: "string", platform: "string" } },
    metadata: { struct: { value: "string", type: "string", filename: "string", function: "string" } },
    numComments: "int",
    assignedTo: { struct: { email: "string", type: "string", id: "string", name: "string" } },
    isBookmarked: "bool",
    isSubscribed: "bool",
    subscriptionDetails: { struct: { reason: "string" } },
  },
};
/** GetEvents / GetSpans: struct { Data []map[string]interface{} } */
const EventsBody: GoType = { struct: { data: { slice: { map: "any" } } } };
/** pkg/sentry/stats_v2.go StatsV2Response */
const StatsV2Response: GoType = {
  struct: {
    start: "time",
    end: "time",
    intervals: { slice: "time" },
    groups: {
      slice: {
        struct: {
          by: { struct: { reason: "string", category: "string", outcome: "string" } },
          totals: { struct: { "sum(times_seen)": "int", "sum(quantity)": "int" } },
          series: { struct: { "sum(times_seen)": { slice: "int" }, "sum(quantity)": { slice: "int" } } },
        },
      },
    },
  },
};
/** sentry.SentryErrorResponse: what the plugin shows when the status is not 200. */
const SentryErrorResponse: GoType = { struct: { detail: "string" } };

interface StatsSet {
  name: string;
  data: unknown[];
}

/** pkg/framer ExtractDataSets (map order is random in Go: the sets are sorted by name here). */
function extractDataSets(prefix: string, raw: Record<string, unknown>): StatsSet[] {
  const sets: StatsSet[] = [];
  for (const [key, child] of Object.entries(raw)) {
    if (key === "data") {
      if (!Array.isArray(child)) throw new Error(`expected array, got ${typeof child}`);
      return [...sets, { name: prefix, data: child }];
    }
    if (key === "order" || child === null || typeof child !== "object" || Array.isArray(child)) continue;
    const name = prefix !== "" && key !== "" ? `${prefix}: ${key}` : key;
    sets.push(...extractDataSets(name, child as Record<string, unknown>));
  }
  return sets;
}

/** pkg/framer ConvertEventsStatsResponseToFrame: a Timestamp field, then one nullable float field per set. */
function statsFrame(body: Record<string, unknown>): { timestamps: number[]; fields: Map<string, Array<number | null>> } {
  const sets = extractDataSets("", body);
  const fields = new Map<string, Array<number | null>>();
  let timestamps: number[] = [];
  sets.forEach((set, i) => {
    const rows = set.data.map((row) => {
      if (!Array.isArray(row)) throw new Error("expected array row");
      if (typeof row[0] !== "number") throw new Error(`expected float64 timestamp, got ${typeof row[0]}`);
      const values = row[1];
      if (!Array.isArray(values)) throw new Error("expected array of values");
      const first = values[0];
      if (first === null || typeof first !== "object") throw new Error("expected JSON object");
      const count = (first as Record<string, unknown>).count;
      if (count !== null && count !== undefined && typeof count !== "number")
        throw new Error(`expected float64 or null, got ${typeof count}`);
      return { ts: row[0] as number, count: (count as number | null | undefined) ?? null };
    });
    if (i === 0) timestamps = rows.map((r) => r.ts);
    fields.set(
      set.name,
      rows.map((r) => r.count),
    );
  });
  return { timestamps, fields };
}

const total = (series: Array<number | null> | undefined) => (series ?? []).reduce<number>((n, v) => n + (v ?? 0), 0);

// ---------------------------------------------------------------------------------------------

const USER_AGENT = "grafana-sentry-datasource/2.2.5";
const HOUR = 3_600_000;

describe.each(await dialects())("Grafana's Sentry data source on %s", (dialect) => {
  let server: TestServer;
  let seeded: Seeded;
  let token: string;
  let webId: string;
  let apiId: string;
  let from: number;
  let to: number;
  /** every request replayed, for the count */
  const replayed: string[] = [];

  /** sentry.HTTPClient.Do + Fetch: GET BaseURL+path with the plugin's headers. */
  async function pluginGet(pathAndQuery: string) {
    replayed.push(pathAndQuery);
    const res = await fetch(`${server.url}${pathAndQuery}`, {
      headers: { "User-Agent": USER_AGENT, Authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${pathAndQuery}: ${res.status}, not JSON: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body, link: res.headers.get("link") };
  }

  /** Fetch into a Go type: 200 or the plugin's error (`<status> <detail>`). */
  async function pluginFetch(pathAndQuery: string, type: GoType): Promise<unknown> {
    const r = await pluginGet(pathAndQuery);
    if (r.status !== 200) {
      const e = goDecode(SentryErrorResponse, r.body, "SentryErrorResponse") as { detail: string };
      throw new Error(`${pathAndQuery}: ${r.status} ${e.detail}`);
    }
    return goDecode(type, r.body, pathAndQuery);
  }

  /** FetchWithPagination: follows `Link: <…>; rel="next"; results="true"`, host and scheme dropped. */
  async function pluginFetchAll(pathAndQuery: string, type: GoType & { slice: GoType }): Promise<unknown[]> {
    const out: unknown[] = [];
    let next: string | null = pathAndQuery;
    for (let pages = 0; next !== null; pages++) {
      if (pages > 20) throw new Error(`${pathAndQuery}: more than 20 pages`);
      const r = await pluginGet(next);
      if (r.status !== 200) throw new Error(`${next}: ${r.status} ${(r.body as { detail?: string }).detail}`);
      out.push(...(goDecode(type, r.body, next) as unknown[]));
      const link = /<([^>]+)>;\s*rel="next";\s*results="true"/.exec(r.link ?? "");
      next = link ? new URL(link[1] as string).pathname + new URL(link[1] as string).search : null;
    }
    return out;
  }

  const org = "/api/0/organizations/acme";

  beforeAll(async () => {
    server = await startServer({ dialect });
    seeded = await seedAcme(server);
    token = seeded.token;
    webId = seeded.projectId;
    const apiDsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "api", "--platform", "python"));
    // Every event at the seeded event's own time: series are per hour, and the same user's two
    // production events on either side of an hour boundary would count that user twice.
    const t = seeded.eventTimestamp;
    // web: 2 in production (the seeded one + 1), 1 in staging; api: 1 in production, 1 in staging.
    const sent = [
      await sendEnvelope(seeded.dsn, { timestamp: t }),
      await sendEnvelope(seeded.dsn, {
        timestamp: t,
        environment: "staging",
        tags: { region: "us-east" },
        exception: { values: [{ type: "RangeError", value: "Invalid array length" }] },
      }),
      await sendEnvelope(apiDsn, {
        timestamp: t,
        platform: "python",
        environment: "production",
        tags: { region: "us-east", worker: "w1" },
        exception: { values: [{ type: "KeyError", value: "'user'" }] },
      }),
      await sendEnvelope(apiDsn, {
        timestamp: t,
        platform: "python",
        environment: "staging",
        tags: { region: "eu-west", worker: "w2" },
        exception: { values: [{ type: "KeyError", value: "'user'" }] },
      }),
    ];
    // A transaction with a child span in web (the Spans queries).
    const trace = crypto.randomUUID().replace(/-/g, "");
    const envelope = [
      JSON.stringify({ event_id: crypto.randomUUID().replace(/-/g, "") }),
      JSON.stringify({ type: "transaction" }),
      JSON.stringify({
        type: "transaction",
        transaction: "GET /cart",
        environment: "production",
        start_timestamp: t - 30,
        timestamp: t - 29.8,
        contexts: { trace: { trace_id: trace, span_id: "1".repeat(16), op: "http.server", status: "ok" } },
        spans: [
          {
            span_id: "2".repeat(16),
            parent_span_id: "1".repeat(16),
            op: "db.query",
            description: "SELECT cart",
            start_timestamp: t - 29.9,
            timestamp: t - 29.85,
          },
        ],
      }),
    ].join("\n");
    const res = await fetch(
      `${seeded.dsn.protocol}//${seeded.dsn.host}/api/${seeded.dsn.pathname.slice(1)}/envelope/?sentry_key=${seeded.dsn.username}`,
      {
        method: "POST",
        body: envelope,
      },
    );
    expect(res.status).toBe(200);
    const projects = (await seeded.api("GET", `${org}/projects/`)).body as Array<{ id: string; slug: string }>;
    apiId = String(projects.find((p) => p.slug === "api")?.id);
    // A team owning api only (the team's projects resource call).
    expect((await seeded.api("POST", `${org}/teams/`, { name: "backend" })).status).toBe(201);
    await seeded.api("POST", "/api/0/projects/acme/api/teams/backend/");
    await seeded.api("DELETE", "/api/0/projects/acme/web/teams/backend/");
    from = Date.now() - 6 * HOUR;
    to = Date.now() + 60_000;
    // Every event digested, the spans and the outcome counters written.
    await eventually(
      async () => {
        const r = await seeded.api("GET", `${org}/events/?field=id&field=project&statsPeriod=1d&per_page=100`);
        const ids = new Set((r.body?.data ?? []).map((d: { id: string }) => d.id));
        return [seeded.eventId, ...sent].every((id) => ids.has(id));
      },
      30_000,
      "events digested",
    );
    await eventually(
      async () => ((await seeded.api("GET", `${org}/events/?dataset=spans&field=id&statsPeriod=1d`)).body?.data ?? []).length >= 2,
      30_000,
      "spans",
    );
    await eventually(
      async () => {
        const r = await seeded.api(
          "GET",
          `${org}/stats_v2/?field=sum(quantity)&category=error&outcome=accepted&statsPeriod=1d&interval=1h`,
        );
        return r.body?.groups?.[0]?.totals?.["sum(quantity)"] >= 5;
      },
      30_000,
      "outcomes",
    );
  }, 300_000);

  afterAll(async () => {
    console.log(`[${dialect}] ${replayed.length} plugin requests replayed`);
    await server?.stop();
  });

  describe("resource calls of the query editor and the health check", () => {
    test("GET /api/0/organizations/ → []SentryOrganization", async () => {
      const orgs = (await pluginFetch("/api/0/organizations/", { slice: SentryOrganization })) as Array<Record<string, unknown>>;
      expect(orgs.map((o) => o.slug)).toEqual(["acme"]);
      expect(orgs[0]?.dateCreated).toBeInstanceOf(Date);
    });

    test("projects: paginated (query editor) and one page (CheckHealth) → []SentryProject", async () => {
      const all = (await pluginFetchAll(`${org}/projects/`, { slice: SentryProject })) as Array<Record<string, unknown>>;
      expect(all.map((p) => p.slug).sort()).toEqual(["api", "web"]);
      expect(all.map((p) => p.id)).toContain(webId);
      const health = (await pluginFetch(`${org}/projects/`, { slice: SentryProject })) as unknown[];
      expect(health).toHaveLength(2);
    });

    test("tags: GET /organizations/{org}/tags/ → []SentryTag", async () => {
      const tags = (await pluginFetchAll(`${org}/tags/`, { slice: SentryTag })) as Array<{
        key: string;
        name: string;
        totalValues: number;
      }>;
      const region = tags.find((t) => t.key === "region");
      expect(region).toMatchObject({ name: "Region", totalValues: 2 });
      expect(tags.find((t) => t.key === "worker")).toMatchObject({ totalValues: 2 });
      expect(tags.map((t) => t.key)).toContain("environment");
      // The editor offers them as `tags[key]` fields: each answers on /events/.
      const rows = (await pluginFetch(
        `${org}/events/?${goEncode([
          ["query", ""],
          ["start", goLocal(from)],
          ["end", goLocal(to)],
          ["per_page", "100"],
          ["field", "id"],
          ["field", "tags[region]"],
        ])}`,
        EventsBody,
      )) as { data: Array<Record<string, unknown>> };
      expect(rows.data.map((r) => r["tags[region]"]).sort()).toEqual(["eu-west", "eu-west", "eu-west", "us-east", "us-east"]);
    });

    test("span attributes: GET /organizations/{org}/trace-items/attributes/?attributeType=number&itemType=spans → []SentryAttribute", async () => {
      const path = `${org}/trace-items/attributes/?${goEncode([
        ["attributeType", "number"],
        ["itemType", "spans"],
      ])}`;
      const attrs = (await pluginFetchAll(path, { slice: SentryAttribute })) as Array<{ key: string; name: string }>;
      expect(attrs.map((a) => a.key)).toContain("span.duration");
      // Each key is a field the Spans query answers.
      for (const a of attrs) {
        const r = await pluginGet(
          `${org}/events/?${goEncode([
            ["dataset", "spans"],
            ["useRpc", "1"],
            ["query", ""],
            ["start", goLocal(from)],
            ["end", goLocal(to)],
            ["per_page", "100"],
            ["field", `avg(${a.key})`],
          ])}`,
        );
        expect(r.status, a.key).toBe(200);
      }
    });

    test("teams (paginated) → []SentryTeam, and GET /teams/{org}/{team}/projects/ → []SentryProject", async () => {
      const teams = (await pluginFetchAll(`${org}/teams/`, { slice: SentryTeam })) as Array<{ slug: string }>;
      expect(teams.map((t) => t.slug)).toContain("backend");
      const projects = (await pluginFetch("/api/0/teams/acme/backend/projects/", { slice: SentryProject })) as Array<
        Record<string, unknown>
      >;
      expect(projects.map((p) => p.slug)).toEqual(["api"]);
      expect(((projects[0]?.teams ?? []) as Array<{ slug: string }>).map((t) => t.slug)).toContain("backend");
    });
  });

  /** GetIssuesInput.ToQuery */
  function issuesQuery(q: { query: string; sort?: string; limit?: number; projects?: string[]; environments?: string[] }) {
    const limit = q.limit && q.limit >= 1 && q.limit <= 10000 ? q.limit : 10000;
    const params: Array<[string, string]> = [
      ["query", q.query],
      ["start", goLocal(from)],
      ["end", goLocal(to)],
    ];
    if (q.sort) params.push(["sort", q.sort]);
    params.push(["limit", String(limit)]);
    for (const p of q.projects ?? []) params.push(["project", p]);
    for (const e of q.environments ?? []) params.push(["environment", e]);
    return `${org}/issues/?${goEncode(params)}`;
  }

  describe("Issues", () => {
    test("default query (is:unresolved, every project, limit 10000) → []SentryIssue", async () => {
      const issues = (await pluginFetch(issuesQuery({ query: "is:unresolved" }), { slice: SentryIssue })) as Array<Record<string, unknown>>;
      expect(issues).toHaveLength(3);
      const keyError = issues.find((i) => (i.title as string).startsWith("KeyError")) as Record<string, unknown>;
      expect(keyError).toMatchObject({ count: "2", status: "unresolved", level: "error" });
      expect((keyError.project as { id: string }).id).toBe(apiId);
      expect(keyError.firstSeen).toBeInstanceOf(Date);
    });

    test.each(["date", "new", "priority", "freq", "user"])("sort=%s with two projects and an environment", async (sort) => {
      const issues = (await pluginFetch(issuesQuery({ query: "", sort, limit: 50, projects: [webId, apiId], environments: ["staging"] }), {
        slice: SentryIssue,
      })) as Array<{ title: string }>;
      expect(issues.map((i) => i.title.split(":")[0]).sort()).toEqual(["KeyError", "RangeError"]);
    });

    test("one project, two environments", async () => {
      const issues = (await pluginFetch(issuesQuery({ query: "", projects: [apiId], environments: ["production", "staging"] }), {
        slice: SentryIssue,
      })) as Array<{ count: string }>;
      expect(issues.map((i) => i.count)).toEqual(["2"]);
    });
  });

  /** GetEventsInput.ToQuery / GetSpansInput.ToQuery */
  function eventsQuery(q: {
    spans?: boolean;
    query: string;
    fields: string[];
    sort?: string;
    limit?: number;
    projects?: string[];
    environments?: string[];
  }) {
    const limit = q.limit && q.limit >= 1 && q.limit <= 100 ? q.limit : 100;
    const params: Array<[string, string]> = q.spans
      ? [
          ["dataset", "spans"],
          ["useRpc", "1"],
        ]
      : [];
    params.push(["query", q.query], ["start", goLocal(from)], ["end", goLocal(to)]);
    if (q.sort) params.push(["sort", q.sort]);
    params.push(["per_page", String(limit)]);
    for (const f of q.fields) params.push(["field", f]);
    for (const p of q.projects ?? []) params.push(["project", p]);
    for (const e of q.environments ?? []) params.push(["environment", e]);
    return `${org}/events/?${goEncode(params)}`;
  }

  const EVENTS_DEFAULT_FIELDS = [
    "id",
    "title",
    "project",
    "project.id",
    "release",
    "count()",
    "epm()",
    "last_seen()",
    "level",
    "event.type",
    "platform",
  ];
  const SPANS_DEFAULT_FIELDS = ["id", "span.op", "span.description", "count()"];

  describe("Events", () => {
    test("the editor's default fields, no sort → {data: []map}", async () => {
      const body = (await pluginFetch(eventsQuery({ query: "", fields: EVENTS_DEFAULT_FIELDS }), EventsBody)) as {
        data: Array<Record<string, unknown>>;
      };
      expect(body.data).toHaveLength(5);
      expect(body.data.reduce((n, r) => n + (r["count()"] as number), 0)).toBe(5);
      expect(new Set(body.data.map((r) => r.project))).toEqual(new Set(["web", "api"]));
    });

    test.each([
      ["-last_seen()", "desc"],
      ["count()", "asc"],
      ["-epm()", "desc"],
      ["level", "asc"],
    ])("sort=%s (%s), projects and environments", async (sort) => {
      const body = (await pluginFetch(
        eventsQuery({
          query: "level:error",
          fields: EVENTS_DEFAULT_FIELDS,
          sort,
          limit: 10,
          projects: [webId, apiId],
          environments: ["production"],
        }),
        EventsBody,
      )) as { data: Array<Record<string, unknown>> };
      expect(body.data).toHaveLength(3);
      expect(body.data.every((r) => r.level === "error")).toBe(true);
    });

    test("aggregated by environment, one project", async () => {
      const body = (await pluginFetch(
        eventsQuery({ query: "", fields: ["environment", "count()", "count_unique(user)"], sort: "-count()", projects: [webId] }),
        EventsBody,
      )) as { data: Array<Record<string, unknown>> };
      expect(body.data).toEqual([
        { environment: "production", "count()": 2, "count_unique(user)": 1 },
        { environment: "staging", "count()": 1, "count_unique(user)": 1 },
      ]);
    });
  });

  describe("Spans", () => {
    test("dataset=spans&useRpc=1 with the editor's default fields", async () => {
      const body = (await pluginFetch(eventsQuery({ spans: true, query: "", fields: SPANS_DEFAULT_FIELDS }), EventsBody)) as {
        data: Array<Record<string, unknown>>;
      };
      expect(body.data.map((r) => r["span.op"]).sort()).toEqual(["db.query", "http.server"]);
    });

    test("a query, a sort and a project", async () => {
      const body = (await pluginFetch(
        eventsQuery({
          spans: true,
          query: "span.op:db.query",
          fields: ["span.op", "count()", "avg(span.duration)"],
          sort: "-count()",
          projects: [webId],
        }),
        EventsBody,
      )) as { data: Array<Record<string, unknown>> };
      expect(body.data).toHaveLength(1);
      expect(body.data[0]).toMatchObject({ "span.op": "db.query", "count()": 1 });
      expect(body.data[0]?.["avg(span.duration)"]).toBeCloseTo(50, -1);
    });
  });

  /** GetEventsStatsInput.ToQuery / GetSpansStatsInput.ToQuery (Fields = yAxis + groups). */
  function eventsStatsQuery(q: {
    spans?: boolean;
    query: string;
    yAxis: string[];
    groups?: string[];
    sort?: string;
    limit?: number;
    interval: number;
    projects?: string[];
    environments?: string[];
  }) {
    const limit = q.limit && q.limit >= 1 && q.limit <= 10 ? q.limit : 10;
    const params: Array<[string, string]> = [];
    if (q.spans) params.push(["dataset", "spans"]);
    params.push(["query", q.query], ["start", goRfc3339(from)], ["end", goRfc3339(to)]);
    if (q.spans) params.push(["partial", "1"], ["excludeOther", "0"], ["sampling", "NORMAL"]);
    else params.push(["interval", formatSentryInterval(q.interval)], ["partial", "1"], ["excludeOther", "1"]);
    if (q.sort) params.push(["sort", q.sort]);
    params.push(["topEvents", String(limit)]);
    for (const f of [...q.yAxis, ...(q.groups ?? [])]) params.push(["field", f]);
    for (const y of q.yAxis) params.push(["yAxis", y]);
    for (const p of q.projects ?? []) params.push(["project", p]);
    for (const e of q.environments ?? []) params.push(["environment", e]);
    return `${org}/events-stats/?${goEncode(params)}`;
  }

  async function stats(path: string) {
    const body = (await pluginFetch(path, { map: "any" })) as Record<string, unknown>;
    return { body, frame: statsFrame(body) };
  }

  describe("Events Stats", () => {
    test("count() without groups, 1h interval (topEvents=10 sent, nothing to group by)", async () => {
      const { frame } = await stats(eventsStatsQuery({ query: "", yAxis: ["count()"], interval: HOUR }));
      expect([...frame.fields.keys()]).toEqual([""]);
      expect(total(frame.fields.get(""))).toBe(5);
      expect(frame.timestamps[1] - (frame.timestamps[0] as number)).toBe(3600);
    });

    test("count() grouped by environment, 5m interval: one series per value, Sentry's top-events shape", async () => {
      const { body, frame } = await stats(
        eventsStatsQuery({ query: "", yAxis: ["count()"], groups: ["environment"], interval: 5 * 60_000 }),
      );
      expect(Object.keys(body).sort()).toEqual(["production", "staging"]);
      expect((body.production as { order: number }).order).toBe(0);
      expect((body.staging as { order: number }).order).toBe(1);
      expect(total(frame.fields.get("production"))).toBe(3);
      expect(total(frame.fields.get("staging"))).toBe(2);
      expect(frame.timestamps[1] - (frame.timestamps[0] as number)).toBe(300);
    });

    test("two axes grouped by project and environment, sort, limit 2, project and environment filters", async () => {
      const { body, frame } = await stats(
        eventsStatsQuery({
          query: "level:error",
          yAxis: ["count()", "count_unique(user)"],
          groups: ["project", "environment"],
          sort: "-count()",
          limit: 2,
          interval: HOUR,
          projects: [webId, apiId],
          environments: ["production", "staging"],
        }),
      );
      expect(Object.keys(body)).toHaveLength(2);
      expect((body["web,production"] as { order: number }).order).toBe(0);
      expect(total(frame.fields.get("web,production: count()"))).toBe(2);
      expect(total(frame.fields.get("web,production: count_unique(user)"))).toBe(1);
    });

    test("a sub-minute interval (short dashboards: FormatSentryInterval writes seconds)", async () => {
      const { frame } = await stats(eventsStatsQuery({ query: "", yAxis: ["count()"], interval: 30_000 }));
      expect(total(frame.fields.get(""))).toBe(5);
    });
  });

  describe("Spans Stats", () => {
    test("dataset=spans, excludeOther=0, sampling=NORMAL, no interval, grouped by span.op", async () => {
      const { body, frame } = await stats(
        eventsStatsQuery({ spans: true, query: "", yAxis: ["count()"], groups: ["span.op"], interval: HOUR }),
      );
      expect(Object.keys(body).sort()).toEqual(["db.query", "http.server"]);
      expect(total(frame.fields.get("db.query"))).toBe(1);
    });

    test("limit 1 with excludeOther=0: the top group and Other", async () => {
      const { body, frame } = await stats(
        eventsStatsQuery({ spans: true, query: "", yAxis: ["count()"], groups: ["span.op"], sort: "span.op", limit: 1, interval: HOUR }),
      );
      expect(Object.keys(body).sort()).toEqual(["Other", "db.query"]);
      expect((body.Other as { order: number }).order).toBe(1);
      expect(total(frame.fields.get("Other"))).toBe(1);
    });
  });

  /** GetStatsV2Input.ToQuery */
  function statsV2Query(q: {
    fields: string[];
    category: string[];
    groupBy?: string[];
    interval?: string;
    projects?: string[];
    outcome?: string[];
    reason?: string[];
  }) {
    const params: Array<[string, string]> = [
      ["start", goLocal(from)],
      ["end", goLocal(to)],
    ];
    if (q.interval) params.push(["interval", q.interval]);
    for (const c of q.category) params.push(["category", c]);
    for (const f of q.fields) params.push(["field", f]);
    for (const g of q.groupBy ?? []) params.push(["groupBy", g]);
    for (const p of q.projects ?? []) params.push(["project", p]);
    for (const o of q.outcome ?? []) params.push(["outcome", o]);
    for (const r of q.reason ?? []) params.push(["reason", r]);
    return `${org}/stats_v2/?${goEncode(params)}`;
  }

  type StatsV2 = {
    intervals: Date[];
    groups: Array<{ by: Record<string, string>; totals: Record<string, number>; series: Record<string, number[]> }>;
  };

  describe("Stats (stats_v2)", () => {
    test("sum(quantity) of errors grouped by outcome and category, 1h", async () => {
      const s = (await pluginFetch(
        statsV2Query({ fields: ["sum(quantity)"], category: ["error"], groupBy: ["outcome", "category"], interval: "1h" }),
        StatsV2Response,
      )) as StatsV2;
      const accepted = s.groups.find((g) => g.by.outcome === "accepted" && g.by.category === "error");
      expect(accepted?.totals["sum(quantity)"]).toBeGreaterThanOrEqual(5);
      // ConvertStatsV2ResponseToFrame charts a series only when it has one point per interval.
      expect(accepted?.series["sum(quantity)"]).toHaveLength(s.intervals.length);
      expect(s.intervals.length).toBeGreaterThan(0);
    });

    test("sum(times_seen), several categories, outcome and reason filters, groupBy reason, one project, 1d", async () => {
      const s = (await pluginFetch(
        statsV2Query({
          fields: ["sum(times_seen)"],
          category: ["error", "transaction", "attachment", "default"],
          groupBy: ["reason", "outcome"],
          interval: "1d",
          projects: [apiId],
          outcome: ["accepted", "filtered", "rate_limited"],
        }),
        StatsV2Response,
      )) as StatsV2;
      for (const g of s.groups) expect(g.series["sum(times_seen)"]).toHaveLength(s.intervals.length);
      const accepted = s.groups.filter((g) => g.by.outcome === "accepted");
      expect(accepted.reduce((n, g) => n + (g.totals["sum(times_seen)"] ?? 0), 0)).toBeGreaterThanOrEqual(2);
    });

    test("both fields, no interval, no groupBy", async () => {
      const s = (await pluginFetch(
        statsV2Query({ fields: ["sum(quantity)", "sum(times_seen)"], category: ["error"], projects: [webId] }),
        StatsV2Response,
      )) as StatsV2;
      expect(s.groups).toHaveLength(1);
      expect(s.groups[0]?.series["sum(quantity)"]).toHaveLength(s.intervals.length);
    });

    test("groupBy category with the invalid and client_discard outcomes", async () => {
      const s = (await pluginFetch(
        statsV2Query({
          fields: ["sum(quantity)"],
          category: ["error", "session", "security"],
          groupBy: ["category"],
          interval: "1h",
          outcome: ["invalid", "client_discard", "abuse"],
        }),
        StatsV2Response,
      )) as StatsV2;
      expect(s.groups.every((g) => g.series["sum(quantity)"]?.length === s.intervals.length)).toBe(true);
    });
  });

  describe("Metrics", () => {
    test("GET /metrics/data/: Sentry's removed product answers an error with a detail the plugin shows", async () => {
      const path = `${org}/metrics/data/?${goEncode([
        ["includeSeries", "1"],
        ["start", goLocal(from)],
        ["end", goLocal(to)],
        ["interval", formatSentryInterval(HOUR)],
        ["groupBy", "environment"],
        ["orderBy", "-session.all"],
        ["per_page", "5"],
        ["project", webId],
        ["environment", "production"],
        ["field", "session.all"],
      ])}`;
      const r = await pluginGet(path);
      expect(r.status).toBe(404);
      const e = goDecode(SentryErrorResponse, r.body, "SentryErrorResponse") as { detail: string };
      expect(e.detail).toMatch(/metrics.*not available/i);
    });
  });
});
