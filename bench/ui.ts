/**
 * `npm run bench:ui` — server response times of the triage screens on a big installation.
 *
 *   1. seeds N events (default 1,000,000) in M issues (default 10,000) over 90 days, in three
 *      projects, straight into the database with bulk SQL (not through ingest: minutes, not
 *      hours): issues with realistic skew (a few hot issues hold most events), statuses, levels,
 *      releases, environments, users, tags, digests — plus the 0007 statistics (hourly counts and
 *      tag values, and the 0042 daily rollup) exactly as the digest batch would have written them;
 *   2. starts the built server (`node dist/cli.mjs start`) on that database, signs in, and times
 *      repeated requests (sequential, after a warm-up): the stream's default view, a tag search,
 *      a deep page (keyset cursor ~5,000 issues in), Sentry's REST issue lists (project and org level,
 *      with `stats`), issue pages (hot and cold issues), and a trace of 5,000 spans across the three
 *      projects with 200 logs, 100 metric samples and errors in it (seeded with storage/'s own
 *      insertSpans / insertLogs / insertMetrics): its page, Sentry's `trace/{id}/` and the trace list;
 *   3. reads the stream's first-load JavaScript from the build output (.next route stats,
 *      gzipped).
 *
 * Options: --postgres (PostgreSQL at ERRATA_BENCH_POSTGRES_URL or postgres://postgres@127.0.0.1:5432),
 *   --events N, --issues N, --requests N (per scenario, default 200), --keep (keep the data dir /
 *   database and print where), --reuse <dir|database> (time against a kept data dir — or, with --postgres,
 *   a kept database name or URL — without seeding again; --events/--issues are then read from it, and
 *   it is never removed; its data was seeded relative to the time of that run). Targets: stream p95 ≤ 100 ms, issue page p95 ≤ 150 ms, trace page
 *   (5,000 spans) p95 ≤ 300 ms, first-load JS ≤ 150 KB gzipped. Run `npm run build` first. Not a
 *   test: figures depend on the machine.
 *
 * At 10 M events / 100 k issues, run on both databases (`--events 10000000 --issues 100000`, and
 * `--postgres`): seeding takes 4 min on SQLite and 13 on PostgreSQL on an idle two-core machine
 * (45-65 min when it is shared), so keep the data (`--keep`) and time again with `--reuse`.
 * Figures, before and after issue 43's plans, in docs/scaling.md ("The triage screens at 10 M events").
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import pg from "pg";
import { openDb } from "../src/storage/db";
import { writeTx } from "../src/storage/dialect";
import { insertMetrics } from "../src/storage/events/trace-metrics";
import { insertLogs, insertSpans } from "../src/storage/events/traces";
import { dailyRollup } from "../src/storage/issues/stats";
import { CLI, freePort, ROOT, sleep } from "./helpers";

const execFileP = promisify(execFile);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Args {
  postgres: boolean;
  events: number;
  issues: number;
  requests: number;
  keep: boolean;
  /** a kept data dir (SQLite) or database (PostgreSQL) to time against instead of seeding */
  reuse: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const get = (name: string): string | undefined => {
    const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (i === -1) return undefined;
    const a = argv[i] as string;
    return a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[i + 1];
  };
  return {
    postgres: argv.includes("--postgres"),
    events: Number(get("events") ?? 1_000_000),
    issues: Number(get("issues") ?? 10_000),
    requests: Number(get("requests") ?? 200),
    keep: argv.includes("--keep"),
    reuse: get("reuse"),
  };
}

/** Deterministic pseudo-random numbers (mulberry32): the same data on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ENVIRONMENTS = ["production", "production", "production", "staging", "development"];
const BROWSERS = ["Chrome 124", "Chrome 123", "Firefox 125", "Safari 17.4", "Edge 124"];
const LEVELS = ["error", "error", "error", "error", "warning", "warning", "fatal", "info"];
const TYPES = ["TypeError", "ReferenceError", "RangeError", "Error", "SyntaxError", "NetworkError", "ChunkLoadError", "AuthError"];
const WORDS = [
  "checkout",
  "cart",
  "payment",
  "session",
  "token",
  "profile",
  "search",
  "upload",
  "invoice",
  "refund",
  "render",
  "hydration",
  "fetch",
  "timeout",
  "socket",
  "queue",
];
const RELEASES = Array.from({ length: 30 }, (_, i) => `web@1.${Math.floor(i / 10)}.${i % 10}`);

interface SeedIssue {
  id: number;
  projectId: number;
  shortId: number;
  title: string;
  culprit: string;
  type: string;
  level: string;
  status: string;
  substatus: string;
  firstSeen: number;
  lastSeen: number;
  events: number;
  users: number;
  env: string[];
  releases: string[];
  browsers: string[];
  digest: string | null;
  payload: Buffer;
  payloadSize: number;
}

function payloadFor(issue: Omit<SeedIssue, "payload" | "payloadSize">, r: () => number): { blob: Buffer; size: number } {
  const frames = Array.from({ length: 12 }, (_, i) => ({
    function: `${WORDS[(issue.id + i) % WORDS.length]}Handler`,
    filename: i < 8 ? `node_modules/lib${i}/index.js` : `src/${WORDS[(issue.id + i) % WORDS.length]}.ts`,
    lineno: 10 + i,
    colno: 5,
    in_app: i >= 8,
    ...(i >= 8
      ? {
          pre_context: ["function a() {", "  const x = load();"],
          context_line: `  return x.${WORDS[i % WORDS.length]}.total;`,
          post_context: ["}", ""],
        }
      : {}),
  }));
  const event = {
    event_id: "0".repeat(32),
    timestamp: issue.lastSeen / 1000,
    received: issue.lastSeen / 1000,
    platform: "javascript",
    level: issue.level,
    environment: issue.env[0],
    release: issue.releases.at(-1),
    tags: [
      ["browser", issue.browsers[0]],
      ["region", r() < 0.5 ? "eu-west-1" : "us-east-1"],
    ],
    user: { id: String(Math.floor(r() * 100_000)), email: `user${Math.floor(r() * 100_000)}@example.com` },
    contexts: {
      browser: { name: issue.browsers[0]?.split(" ")[0], version: issue.browsers[0]?.split(" ")[1] },
      os: { name: "macOS", version: "14.4" },
    },
    request: { method: "GET", url: `https://shop.example.com/${WORDS[issue.id % WORDS.length]}`, headers: [["User-Agent", "Mozilla/5.0"]] },
    breadcrumbs: {
      values: Array.from({ length: 20 }, (_, i) => ({
        timestamp: issue.lastSeen / 1000 - 20 + i,
        category: "http",
        message: `GET /api/${WORDS[i % WORDS.length]} 200`,
        level: "info",
      })),
    },
    exception: { values: [{ type: issue.type, value: issue.title.split(": ").slice(1).join(": "), stacktrace: { frames } }] },
    errata: {
      notes: [],
      grouping: {
        version: "v2",
        hash: createHash("md5").update(String(issue.id)).digest("hex"),
        source: "app",
        components: [`app: type=${issue.type}`],
      },
    },
  };
  const json = Buffer.from(JSON.stringify(event));
  return { blob: gzipSync(json), size: json.length };
}

/** The issues: a Zipf-like share of the events, first/last seen, status and tag values. */
function makeIssues(a: Args, projectIds: number[], now: number): SeedIssue[] {
  const r = rng(42);
  const weights = Array.from({ length: a.issues }, (_, i) => 1 / (i + 1) ** 0.9);
  const total = weights.reduce((s, w) => s + w, 0);
  const counts = weights.map((w) => Math.max(1, Math.round((w / total) * a.events)));
  // Fix rounding so the total is exact.
  let diff = a.events - counts.reduce((s, c) => s + c, 0);
  for (let i = 0; diff !== 0; i = (i + 1) % counts.length) {
    if (diff > 0) {
      counts[i] = (counts[i] as number) + 1;
      diff--;
    } else if ((counts[i] as number) > 1) {
      counts[i] = (counts[i] as number) - 1;
      diff++;
    }
  }
  const shortIds = new Map(projectIds.map((p) => [p, 0]));
  return counts.map((events, i) => {
    const projectId = projectIds[i % projectIds.length] as number;
    const shortId = (shortIds.get(projectId) ?? 0) + 1;
    shortIds.set(projectId, shortId);
    const type = TYPES[Math.floor(r() * TYPES.length)] as string;
    const w1 = WORDS[Math.floor(r() * WORDS.length)] as string;
    const w2 = WORDS[Math.floor(r() * WORDS.length)] as string;
    const hot = events > 200;
    const firstSeen = now - Math.floor(r() * 89 * DAY) - HOUR;
    const lastSeen = hot ? now - Math.floor(r() * 2 * HOUR) : firstSeen + Math.floor(r() * (now - firstSeen));
    const roll = r();
    const status = roll < 0.7 ? "unresolved" : roll < 0.9 ? "resolved" : "ignored";
    const base = {
      id: i + 1,
      projectId,
      shortId,
      title: `${type}: ${w1} ${w2} failed for item ${i}`,
      culprit: `${w1}Handler (src/${w2}.ts)`,
      type,
      level: LEVELS[Math.floor(r() * LEVELS.length)] as string,
      status,
      substatus: status !== "unresolved" ? "" : now - firstSeen < 7 * DAY ? "new" : r() < 0.05 ? "regressed" : "ongoing",
      firstSeen,
      lastSeen: Math.max(firstSeen, lastSeen),
      events,
      users: Math.max(0, Math.min(events, Math.floor(events * (0.2 + r() * 0.5)))),
      env: [
        ...new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => ENVIRONMENTS[Math.floor(r() * ENVIRONMENTS.length)] as string)),
      ],
      releases: RELEASES.slice(Math.floor(r() * 25), Math.floor(r() * 25) + 1 + Math.floor(r() * 4)),
      browsers: [...new Set(Array.from({ length: 1 + Math.floor(r() * 4) }, () => BROWSERS[Math.floor(r() * BROWSERS.length)] as string))],
      digest: r() < 0.03 ? String(1_000_000_000 + Math.floor(r() * 1_000_000_000)) : null,
    };
    if (base.releases.length === 0) base.releases = [RELEASES[0] as string];
    const p = payloadFor(base, r);
    return { ...base, payload: p.blob, payloadSize: p.size };
  });
}

interface Writer {
  insert(table: string, columns: string[], rows: unknown[][]): Promise<void>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

function sqliteWriter(file: string): Writer {
  const db = openDb({ kind: "sqlite", file, synchronous: "NORMAL" });
  const raw = db.sqlite as NonNullable<typeof db.sqlite>;
  raw.pragma("synchronous = OFF");
  const statements = new Map<string, ReturnType<typeof raw.prepare>>();
  return {
    async insert(table, columns, rows) {
      const key = `${table}:${columns.join(",")}`;
      let st = statements.get(key);
      if (!st) {
        st = raw.prepare(`insert into ${table} (${columns.join(",")}) values (${columns.map(() => "?").join(",")})`);
        statements.set(key, st);
      }
      const s = st;
      raw.transaction((list: unknown[][]) => {
        for (const row of list) (s.run as (...params: unknown[]) => unknown)(...row);
      })(rows);
    },
    async exec(sql) {
      raw.exec(sql);
    },
    close: () => db.close(),
  };
}

function postgresWriter(url: string): Writer {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    async insert(table, columns, rows) {
      // Many rows per statement; parameters stay under PostgreSQL's 65,535.
      const per = Math.max(1, Math.floor(60_000 / columns.length));
      for (let i = 0; i < rows.length; i += per) {
        const chunk = rows.slice(i, i + per);
        const values: unknown[] = [];
        const tuples = chunk.map((row) => `(${row.map((v) => `$${values.push(v)}`).join(",")})`);
        await pool.query(`insert into ${table} (${columns.join(",")}) values ${tuples.join(",")}`, values);
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}

async function seed(w: Writer, a: Args, projectIds: number[], now: number): Promise<SeedIssue[]> {
  const t0 = Date.now();
  const issues = makeIssues(a, projectIds, now);
  await w.insert(
    "issues",
    [
      "id",
      "project_id",
      "short_id",
      "title",
      "culprit",
      "type",
      "level",
      "status",
      "substatus",
      "first_seen",
      "last_seen",
      "event_count",
      "user_count",
      "metadata",
      "first_event_id",
      "last_event_id",
      "first_release",
      "last_release",
      "flags",
    ],
    issues.map((i) => [
      i.id,
      i.projectId,
      i.shortId,
      i.title,
      i.culprit,
      i.type,
      i.level,
      i.status,
      i.substatus,
      i.firstSeen,
      i.lastSeen,
      i.events,
      i.users,
      JSON.stringify({ type: i.type }),
      eventId(i.id, 0),
      eventId(i.id, i.events - 1),
      i.releases[0],
      i.releases.at(-1),
      i.type === "ChunkLoadError" ? '["deploy-skew"]' : null,
    ]),
  );
  for (const p of projectIds)
    await w.exec(`update projects set next_short_id = ${issues.filter((i) => i.projectId === p).length + 1} where id = ${p}`);

  // Events, with the statistics the digest batch would have kept.
  const r = rng(7);
  const cols = [
    "project_id",
    "issue_id",
    "event_id",
    "received_at",
    "timestamp",
    "level",
    "platform",
    "release",
    "environment",
    "title",
    "culprit",
    "user_key",
    "trace_id",
    "digest",
    "size",
    "payload",
  ];
  let batch: unknown[][] = [];
  let written = 0;
  for (const i of issues) {
    const hourly = new Map<number, number>();
    const tags = new Map<string, { count: number; last: number }>();
    const tag = (k: string, v: string, at: number) => {
      const key = `${k}\u0001${v}`;
      const t = tags.get(key);
      if (t) {
        t.count++;
        t.last = Math.max(t.last, at);
      } else tags.set(key, { count: 1, last: at });
    };
    const span = Math.max(1, i.lastSeen - i.firstSeen);
    for (let n = 0; n < i.events; n++) {
      const at = n === 0 ? i.firstSeen : n === i.events - 1 ? i.lastSeen : i.firstSeen + Math.floor(r() * span);
      const env = i.env[Math.floor(r() * i.env.length)] as string;
      const release = i.releases[Math.floor(r() * i.releases.length)] as string;
      const browser = i.browsers[Math.floor(r() * i.browsers.length)] as string;
      const user = `id:${Math.floor(r() * Math.max(1, Math.min(i.users, 50)))}`;
      batch.push([
        i.projectId,
        i.id,
        eventId(i.id, n),
        at,
        at,
        i.level,
        "javascript",
        release,
        env,
        i.title,
        i.culprit,
        user,
        null,
        i.digest,
        i.payloadSize,
        i.payload,
      ]);
      const hour = Math.floor(at / HOUR) * HOUR;
      hourly.set(hour, (hourly.get(hour) ?? 0) + 1);
      tag("level", i.level, at);
      tag("environment", env, at);
      tag("release", release, at);
      tag("browser", browser, at);
      tag("user", user, at);
      if (i.digest) tag("digest", i.digest, at);
      if (batch.length >= 5000) {
        await w.insert("events", cols, batch);
        written += batch.length;
        batch = [];
        if (written % 100_000 === 0)
          process.stdout.write(`  ${written.toLocaleString("en")} events (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
      }
    }
    await w.insert(
      "issue_hourly",
      ["issue_id", "hour", "count"],
      [...hourly].map(([h, c]) => [i.id, h, c]),
    );
    // The day rows the digest's write derives from the same hour rows (0042).
    await w.insert(
      "issue_daily",
      ["issue_id", "day", "count"],
      dailyRollup([...hourly].map(([hour, count]) => ({ issueId: i.id, hour, count }))).map((d) => [d.issueId, d.day, d.count]),
    );
    const keys = new Map<string, number>();
    const valueRows = [...tags].map(([k, v]) => {
      const [key, value] = k.split("\u0001") as [string, string];
      keys.set(key, (keys.get(key) ?? 0) + v.count);
      return [i.id, key, value, i.projectId, v.count, v.last];
    });
    await w.insert("issue_tag_values", ["issue_id", "key", "value", "project_id", "count", "last_seen"], valueRows);
    await w.insert(
      "issue_tag_keys",
      ["issue_id", "key", "project_id", "count"],
      [...keys].map(([k, c]) => [i.id, k, i.projectId, c]),
    );
  }
  if (batch.length > 0) await w.insert("events", cols, batch);
  console.log(
    `  seeded ${a.events.toLocaleString("en")} events in ${a.issues.toLocaleString("en")} issues in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
  return issues;
}

const TRACE_SPANS = 5_000;

/**
 * One big trace across the three projects, written with storage/'s own inserts: a root in `web`,
 * 50 segments spread over the services (each a transaction with its own children, some nested),
 * 200 logs on its spans, 100 metric samples, and three of the seeded error events moved into it.
 */
async function seedTrace(
  database: { kind: "sqlite"; file: string; synchronous: "NORMAL" } | { kind: "postgres"; url: string },
  now: number,
) {
  const db = openDb(database);
  const r = rng(41);
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join("");
  const traceId = hex(32);
  const start = now - 60_000;
  const spans: Array<{ projectId: number; span: Parameters<typeof insertSpans>[3][number] }> = [];
  const span = (projectId: number, parent: string | null, name: string, op: string, at: number, ms: number, segment: boolean) => {
    const spanId = hex(16);
    spans.push({
      projectId,
      span: {
        traceId,
        spanId,
        parentSpanId: parent,
        segmentName: name,
        name,
        op,
        status: r() < 0.02 ? "internal_error" : "ok",
        start: at,
        end: at + ms,
        attributes: JSON.stringify({ "http.method": "GET", "server.address": "bench.internal", "bench.n": spans.length }),
        segment,
      },
    });
    return spanId;
  };
  const root = span(1, null, "GET /checkout", "http.server", start, 4_000, true);
  const segments: string[] = [];
  for (let i = 0; i < 50; i++) {
    const projectId = 1 + (i % 3);
    const at = start + Math.floor(r() * 3_500);
    const call = span(1, root, `GET /api/step/${i}`, "http.client", at, 400, false);
    segments.push(span(projectId, call, `GET /api/step/${i}`, "http.server", at + 5, 380, true));
  }
  while (spans.length < TRACE_SPANS) {
    const parent = segments[spans.length % segments.length] as string;
    const parentSpan = spans.find((s) => s.span.spanId === parent)?.span;
    const at = (parentSpan?.start ?? start) + Math.floor(r() * 300);
    const db1 = span(
      spans.find((s) => s.span.spanId === parent)?.projectId ?? 1,
      parent,
      "SELECT * FROM items WHERE id = $1",
      "db",
      at,
      1 + Math.floor(r() * 40),
      false,
    );
    if (r() < 0.3 && spans.length < TRACE_SPANS)
      span(spans.find((s) => s.span.spanId === parent)?.projectId ?? 1, db1, "pool.acquire", "db.pool", at, 1, false);
  }
  await writeTx(db, async (tx) => {
    for (const projectId of [1, 2, 3]) {
      const mine = spans.filter((s) => s.projectId === projectId).map((s) => s.span);
      await insertSpans(tx, projectId, now, mine);
      const logs = mine.slice(0, 67).map((s, i) => ({
        traceId,
        spanId: s.spanId,
        timestamp: s.start + 1,
        level: i % 10 === 0 ? "error" : "info",
        body: `bench log ${projectId}-${i} for ${s.name}`,
        attributes: JSON.stringify({ "bench.i": i }),
        dedupe: createHash("sha1").update(`${traceId}${projectId}${i}`).digest("hex"),
      }));
      await insertLogs(tx, projectId, now, logs);
      const metrics = mine.slice(0, 34).map((s, i) => ({
        traceId,
        spanId: s.spanId,
        name: ["checkout.attempts", "queue.depth", "payment.latency"][i % 3] as string,
        type: (["counter", "gauge", "distribution"] as const)[i % 3] as "counter" | "gauge" | "distribution",
        unit: i % 3 === 2 ? "millisecond" : null,
        value: 1 + (i % 17),
        timestamp: s.start,
        attributes: "{}",
        dedupe: createHash("sha1").update(`m${traceId}${projectId}${i}`).digest("hex"),
      }));
      await insertMetrics(tx, projectId, now, metrics);
    }
    // Three of the seeded errors happened in this trace.
    const errors = await tx.selectFrom("events").select("id").orderBy("id").limit(3).execute();
    await tx
      .updateTable("events")
      .set({ trace_id: traceId })
      .where(
        "id",
        "in",
        errors.map((e) => e.id),
      )
      .execute();
  });
  await db.close();
  return traceId;
}

function eventId(issue: number, n: number): string {
  return `${issue.toString(16).padStart(12, "0")}${n.toString(16).padStart(20, "0")}`;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

interface Timing {
  label: string;
  p50: number;
  p95: number;
  max: number;
}

async function time(label: string, n: number, url: (i: number) => string, cookie: string): Promise<Timing> {
  const run = async (u: string) => {
    const t = performance.now();
    const res = await fetch(u, { headers: { cookie }, redirect: "manual" });
    const body = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${u}: ${res.status} ${body.slice(0, 300)}`);
    return ms;
  };
  for (let i = 0; i < Math.min(20, n); i++) await run(url(i));
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await run(url(i)));
  times.sort((x, y) => x - y);
  return { label, p50: pct(times, 50), p95: pct(times, 95), max: times.at(-1) as number };
}

/**
 * The same list with and without `stats`, requests alternating so both see the same machine: what
 * the stats cost (issue 28's target: within 10 % of the list without them).
 */
async function timePair(
  label: string,
  n: number,
  withStats: string,
  without: string,
  cookie: string,
): Promise<{ withStats: Timing; without: Timing; ratio: number }> {
  const run = async (u: string) => {
    const t = performance.now();
    const res = await fetch(u, { headers: { cookie } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${u}: ${res.status} ${body.slice(0, 300)}`);
    return performance.now() - t;
  };
  for (let i = 0; i < Math.min(20, n); i++) await run(i % 2 ? withStats : without);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    // Alternate which goes first, so neither always follows the other's cache effects.
    if (i % 2) {
      a.push(await run(withStats));
      b.push(await run(without));
    } else {
      b.push(await run(without));
      a.push(await run(withStats));
    }
  }
  const summary = (l: string, times: number[]): Timing => {
    times.sort((x, y) => x - y);
    return { label: l, p50: pct(times, 50), p95: pct(times, 95), max: times.at(-1) as number };
  };
  const w = summary(`${label} (stats 24h)`, a);
  const wo = summary(`${label}, no stats`, b);
  return { withStats: w, without: wo, ratio: w.p50 / wo.p50 };
}

/**
 * First-load JS of a page: the scripts its HTML loads (as a browser that runs modules fetches
 * them; noModule polyfills are not), read from the build output and gzipped (level 9) one by one.
 * Not the build's route stats: their firstLoadChunkPaths list a chunk the page never requests
 * (next/link's modules a second time, 3.2 KB, which the browser takes from the layout's chunk).
 */
async function firstLoadJs(pageUrl: string, cookie: string): Promise<number | null> {
  const res = await fetch(pageUrl, { headers: { cookie } });
  if (!res.ok) return null;
  const html = await res.text();
  const tags = [...html.matchAll(/<script[^>]+>/g)].map((m) => m[0]).filter((tag) => !/noModule/i.test(tag));
  const srcs = [...new Set(tags.flatMap((tag) => /src="\/_next\/(static\/[^"?]+)/.exec(tag)?.[1] ?? []))];
  if (srcs.length === 0) return null;
  return srcs.reduce((sum, src) => sum + gzipSync(fs.readFileSync(path.join(ROOT, ".next", src)), { level: 9 }).length, 0);
}

/** What a kept run seeded: its event count, issue ids (in seed order) and the big trace. */
async function keptData(database: Parameters<typeof seedTrace>[0]): Promise<{ events: number; issueIds: number[]; traceId: string }> {
  const db = openDb(database);
  try {
    // The issues' counts, not count(*) of events: that reads 10 M rows (minutes on PostgreSQL, cold).
    const events = await db.kysely
      .selectFrom("issues")
      .select((eb) => eb.fn.sum<number | string>("event_count").as("n"))
      .executeTakeFirstOrThrow();
    const issues = await db.kysely.selectFrom("issues").select("id").orderBy("id").execute();
    const trace = await db.kysely.selectFrom("spans").select("trace_id").limit(1).executeTakeFirst();
    if (!trace || issues.length === 0) throw new Error("--reuse: no seeded bench data there (run once with --keep)");
    return { events: Number(events.n), issueIds: issues.map((i) => Number(i.id)), traceId: trace.trace_id };
  } finally {
    await db.close();
  }
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first.`);
  const reuse = a.reuse;
  const dataDir = reuse && !a.postgres ? path.resolve(reuse) : fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-ui-"));
  const adminUrl = process.env.ERRATA_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const dbName = `errata_bench_ui_${process.pid}`;
  let databaseUrl: string | undefined;
  if (a.postgres) {
    const u = new URL(adminUrl);
    if (reuse?.includes("://")) databaseUrl = reuse;
    else {
      if (!reuse) {
        const admin = new pg.Client({ connectionString: adminUrl });
        await admin.connect();
        await admin.query(`create database ${dbName}`);
        await admin.end();
      }
      u.pathname = `/${reuse ?? dbName}`;
      databaseUrl = u.toString();
    }
  }
  const database: Parameters<typeof seedTrace>[0] = databaseUrl
    ? { kind: "postgres", url: databaseUrl }
    : { kind: "sqlite", file: path.join(dataDir, "errata.db"), synchronous: "NORMAL" };
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    // Background jobs would compete with the measurement; they are not what is measured here.
    RETENTION_FIRST_RUN_DELAY_MS: String(DAY),
    LIFECYCLE_SWEEP_INTERVAL_MS: String(DAY),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  const cli = (...args: string[]) =>
    execFileP(process.execPath, [CLI, ...args], { cwd: ROOT, env: env as NodeJS.ProcessEnv }).then((r) => r.stdout.trim());
  const email = "bench@example.com";
  const password = "bench-password-123";
  let issueIds: number[];
  let traceId: string;
  if (reuse) {
    const kept = await keptData(database);
    a.events = kept.events;
    a.issues = kept.issueIds.length;
    issueIds = kept.issueIds;
    traceId = kept.traceId;
    console.log(
      `bench:ui on ${a.postgres ? "PostgreSQL" : "SQLite"}, reusing ${databaseUrl ?? dataDir}: ${a.events.toLocaleString("en")} events, ${a.issues.toLocaleString("en")} issues, ${a.requests} requests per scenario`,
    );
  } else {
    console.log(
      `bench:ui on ${a.postgres ? "PostgreSQL" : "SQLite"}: ${a.events.toLocaleString("en")} events, ${a.issues.toLocaleString("en")} issues, ${a.requests} requests per scenario`,
    );
    await cli("user", "create", "--email", email, "--password", password, "--org", "bench");
    for (const name of ["web", "api", "mobile"]) await cli("project", "create", "--org", "bench", "--name", name);

    const now = Date.now();
    const writer = a.postgres ? postgresWriter(databaseUrl as string) : sqliteWriter(path.join(dataDir, "errata.db"));
    const projectIds = [1, 2, 3];
    const issues = await seed(writer, a, projectIds, now);
    if (a.postgres) {
      await writer.exec("select setval(pg_get_serial_sequence('issues', 'id'), (select max(id) from issues))");
      await writer.exec("analyze");
    } else await writer.exec("analyze");
    await writer.close();
    issueIds = issues.map((i) => i.id);
    traceId = await seedTrace(database, now);
  }

  const proc: ChildProcess = spawn(process.execPath, [CLI, "start"], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let logs = "";
  proc.stdout?.on("data", (d: Buffer) => {
    logs += d;
  });
  proc.stderr?.on("data", (d: Buffer) => {
    logs += d;
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (proc.exitCode !== null) throw new Error(`server exited:\n${logs}`);
      if (i > 600) throw new Error(`server not ready:\n${logs}`);
      const ok = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await sleep(100);
    }
    const login = await fetch(`${url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: url },
      body: JSON.stringify({ email, password }),
    });
    const cookie = (login.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]).join("; ");
    if (!login.ok || !cookie) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);

    // A cursor ~5,000 issues deep: walk the pages once (the cursor is opaque; the stream's links carry it).
    let deep = "";
    for (let pageNo = 0; pageNo < 100; pageNo++) {
      const html = await (await fetch(`${url}/bench/issues${deep ? `?cursor=${deep}` : ""}`, { headers: { cookie } })).text();
      const m = /[?&]cursor=([\w-]+)/.exec(html.slice(html.indexOf('aria-label="Pagination"')));
      if (!m) break;
      deep = m[1] as string;
    }
    const hot = issueIds.slice(0, 10);
    const cold = issueIds.filter((_, n) => n % 997 === 500);
    const pages = [...hot, ...cold];
    const results = [
      await time("stream: default view (is:unresolved, last seen, 24 h sparklines)", a.requests, () => `${url}/bench/issues`, cookie),
      await time(
        'stream: tag search (browser:"Firefox 125" environment:staging)',
        a.requests,
        () => `${url}/bench/issues?query=${encodeURIComponent('browser:"Firefox 125" environment:staging')}`,
        cookie,
      ),
      await time("stream: deep page (~5,000 issues in, keyset cursor)", a.requests, () => `${url}/bench/issues?cursor=${deep}`, cookie),
      await time("stream: sorted by events, 14 d sparklines", a.requests, () => `${url}/bench/issues?sort=freq&stats=14d`, cookie),
    ];
    // Sentry's REST lists as its tools read them (issue 28): every issue carries `stats` (the 24 h
    // series, Sentry's default), timed against the same list without them.
    const pairs = [
      await timePair(
        "REST: project issue list",
        a.requests,
        `${url}/api/0/projects/bench/web/issues/`,
        `${url}/api/0/projects/bench/web/issues/?statsPeriod=`,
        cookie,
      ),
      await timePair(
        "REST: org issue list, statsPeriod=14d",
        a.requests,
        `${url}/api/0/organizations/bench/issues/?statsPeriod=14d`,
        `${url}/api/0/organizations/bench/issues/?statsPeriod=14d&groupStatsPeriod=`,
        cookie,
      ),
    ];
    results.push(...pairs.flatMap((p) => [p.withStats, p.without]));
    results.push(
      await time(
        "issue page (hot and cold issues, latest event)",
        a.requests,
        (i) => `${url}/bench/issues/${pages[i % pages.length]}`,
        cookie,
      ),
    );
    // The trace page of 5,000 spans (issue 41); Sentry's trace endpoint and the trace list beside it.
    const traceResults = [
      await time(
        `trace page (${TRACE_SPANS.toLocaleString("en")} spans, 3 services, 200 logs)`,
        a.requests,
        () => `${url}/bench/traces/${traceId}`,
        cookie,
      ),
      await time(
        `REST: trace/{id}/ (${TRACE_SPANS.toLocaleString("en")} spans as Sentry's tree)`,
        a.requests,
        () => `${url}/api/0/organizations/bench/trace/${traceId}/`,
        cookie,
      ),
      await time("trace list (24 h, metric chart)", a.requests, () => `${url}/bench/traces`, cookie),
    ];
    console.log("");
    console.log("scenario                                                              p50 ms   p95 ms   max ms");
    for (const r of [...results, ...traceResults])
      console.log(
        `${r.label.padEnd(68)} ${r.p50.toFixed(1).padStart(7)}  ${r.p95.toFixed(1).padStart(7)}  ${r.max.toFixed(1).padStart(7)}`,
      );
    const js = await firstLoadJs(`${url}/bench/issues`, cookie);
    console.log("");
    console.log(
      `first-load JS of /bench/issues: ${js === null ? "unknown (the page did not load)" : `${(js / 1024).toFixed(1)} KB gzipped`}`,
    );
    const streamP95 = Math.max(...results.slice(0, 4).map((r) => r.p95));
    const issueP95 = results.at(-1)?.p95 ?? Number.NaN;
    console.log(
      `stats cost (p50 with / without, target ≤ 1.10): ${pairs.map((p) => `${p.withStats.label.replace(/ \(stats 24h\)$/, "")} ${p.ratio.toFixed(3)} ${p.ratio <= 1.1 ? "ok" : "MISSED"}`).join("; ")}`,
    );
    const traceP95 = traceResults[0]?.p95 ?? Number.NaN;
    console.log(
      `targets: stream p95 ${streamP95.toFixed(1)} ms (≤ 100) ${streamP95 <= 100 ? "ok" : "MISSED"}; issue page p95 ${issueP95.toFixed(1)} ms (≤ 150) ${issueP95 <= 150 ? "ok" : "MISSED"}; trace page p95 ${traceP95.toFixed(1)} ms (≤ 300) ${traceP95 <= 300 ? "ok" : "MISSED"}; first-load JS ${js === null ? "?" : `${(js / 1024).toFixed(1)} KB`} (≤ 150) ${js !== null && js <= 150 * 1024 ? "ok" : "MISSED"}`,
    );
  } catch (err) {
    console.error(`server log (tail):\n${logs.slice(-4000)}`);
    throw err;
  } finally {
    if (proc.exitCode === null) proc.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    if (a.keep || reuse)
      console.log(`kept: ${databaseUrl ?? dataDir} (time against it again with --reuse ${a.postgres ? (reuse ?? dbName) : dataDir})`);
    else {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (a.postgres) {
        const admin = new pg.Client({ connectionString: adminUrl });
        await admin.connect();
        await admin.query(`drop database if exists ${dbName} with (force)`);
        await admin.end();
      }
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
