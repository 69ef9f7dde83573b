/**
 * `npm run bench:ingest` — ingest throughput of Errata against the ceiling of Node on this machine.
 *
 *   default mode: a bare node:http server that reads the body and answers 200, and Errata on SQLite
 *     (`node dist/cli.mjs start`, default roles: web, ingest and the digest worker), both up for the
 *     whole run and driven ALTERNATELY (bare, Errata, bare, Errata…) by a load generator in its own
 *     process (bench/load.ts: the autocannon CLI, or `--loader wrk`), keep-alive, 64 connections,
 *     real @sentry/node envelopes (8.5 KB chained exception, 46 KB large event) without event ids,
 *     so every request is a new event. After each Errata run the bench waits until every accepted
 *     event is digested before the next bare run (so the bare server never shares the CPU with
 *     Errata's backlog) and reports that rate too. Prints each round and the medians: requests/s,
 *     p50/p99, the ratio Errata/bare, events/s digested, Errata's RSS (idle and under load).
 *   --e2e: events per second fully digested (grouped and stored) — N events sent over HTTP while
 *     the worker digests, clock stopped when the last one is stored — alternated with the ceiling
 *     of raw better-sqlite3 batched inserts of the same payloads (500 per transaction, WAL, NORMAL).
 *
 * Options (node:util parseArgs): --rounds N (3), --duration S (5, per run), --connections N (64),
 *   --loader autocannon|wrk, --events N (e2e, per round and payload), --only 5kb|50kb,
 *   --node-arg FLAG (repeatable; after the product's own, so a V8 flag given here wins),
 *   --roles web,ingest (Errata's ERRATA_ROLES; default all three; without `worker` nothing digests,
 *   so ingest is measured alone and accepted events are counted in the queue), --env KEY=VALUE (repeatable),
 *   --cpu-prof (Errata writes a .cpuprofile per thread into .tmp/profiles/), --postgres (Errata on a
 *   fresh PostgreSQL database, dropped afterwards; server from --postgres-url or BENCH_POSTGRES_URL,
 *   default postgres://postgres@127.0.0.1:5432/postgres).
 * RSS (VmRSS of the process, all threads): after start, after the warm-up, peak under load (sampled
 * every 250 ms), and settled after the load, compared to the targets (≤ 150 MB idle, ≤ 300 MB under load).
 * Not a test: figures depend on the machine, and ratios mean something only within one run.
 * The production build is (re)built when older than the sources.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type Db, openDb } from "../src/storage/db";
import { countEvents } from "../src/storage/events/events";
import { queueDepth } from "../src/storage/queue/queue";
import Database from "../src/storage/sqlite-driver";
import {
  cpuDelta,
  cpuOf,
  cpuProfArgs,
  createPostgresDatabase,
  type EnvelopeTemplate,
  type ErrataChild,
  fmtBytes,
  loadTemplates,
  ROOT,
  rssOf,
  sampleRss,
  sleep,
  startBare,
  startErrata,
} from "./helpers";
import { type Loader, type LoadResult, makeLoader } from "./load";

interface Args {
  rounds: number;
  duration: number;
  connections: number;
  loader: string;
  e2e: boolean;
  events: number | undefined;
  only: string | undefined;
  cpuProf: boolean;
  roles: string | undefined;
  env: Record<string, string>;
  nodeArgs: string[];
  /** admin URL of a PostgreSQL server: Errata runs on a fresh database there instead of SQLite */
  postgres: string | undefined;
}

function readArgs(): Args {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "3" },
      duration: { type: "string", default: "5" },
      connections: { type: "string", default: "64" },
      loader: { type: "string", default: "autocannon" },
      e2e: { type: "boolean", default: false },
      events: { type: "string" },
      only: { type: "string" },
      "cpu-prof": { type: "boolean", default: false },
      roles: { type: "string" },
      env: { type: "string", multiple: true, default: [] },
      "node-arg": { type: "string", multiple: true, default: [] },
      postgres: { type: "boolean", default: false },
      "postgres-url": { type: "string", default: process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
    },
  });
  return {
    rounds: Number(values.rounds),
    duration: Number(values.duration),
    connections: Number(values.connections),
    loader: values.loader,
    e2e: values.e2e,
    events: values.events === undefined ? undefined : Number(values.events),
    only: values.only,
    cpuProf: values["cpu-prof"],
    roles: values.roles,
    nodeArgs: values["node-arg"],
    postgres: values.postgres ? values["postgres-url"] : undefined,
    env: Object.fromEntries(
      values.env.filter((kv) => kv.includes("=")).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    ),
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** How long after the 3 s reading the settled idle RSS is read. */
const IDLE_SETTLE_MS = 42_000;

function ingestUrl(e: ErrataChild): string {
  return `${e.url}/api/${e.projectId}/envelope/?sentry_version=7&sentry_key=${e.publicKey}&sentry_client=sentry.javascript.node%2F11.12.0`;
}

function row(cols: Array<string | number>, widths: number[]): string {
  return cols.map((c, i) => String(c).padStart(widths[i] ?? 10)).join(" ");
}

/** Opens Errata's database through src/storage (the bench only counts; the server owns writes). */
function openErrataDb(e: ErrataChild): Db {
  const url = e.env.DATABASE_URL;
  if (url) return openDb({ kind: "postgres", url }, { poolSize: 1 });
  return openDb({ kind: "sqlite", file: e.dbFile, synchronous: "NORMAL" });
}

/** Idle RSS ≤ 150 MB (after start and once a burst has settled) and ≤ 300 MB under full load (issue 43). */
const IDLE_RSS_TARGET = 150 * 1024 * 1024;
const LOAD_RSS_TARGET = 300 * 1024 * 1024;

function verdict(rss: number, target: number): string {
  return rss <= target ? `within ${fmtBytes(target)}` : `OVER ${fmtBytes(target)}`;
}

/**
 * With --postgres: a fresh database on that server for this run (dropped afterwards), else none
 * (SQLite in the data directory).
 */
async function benchDatabase(args: Args): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (!args.postgres) return { env: {}, drop: async () => {} };
  const database = await createPostgresDatabase(args.postgres);
  return { env: { DATABASE_URL: database.url }, drop: database.drop };
}

/**
 * Waits until `target` events are stored; returns ms waited (or throws after 10 minutes). With
 * `--roles` lacking `worker` nothing digests: then ingest is measured alone and the accepted
 * events are counted in the queue instead.
 */
async function waitStored(db: Db, target: number, args: Args): Promise<number> {
  const t0 = performance.now();
  const deadline = Date.now() + 10 * 60_000;
  const digesting = !args.roles || args.roles.split(",").includes("worker");
  const count = digesting ? countEvents : queueDepth;
  while (Date.now() < deadline) {
    if ((await count(db)) >= target) return performance.now() - t0;
    await sleep(50);
  }
  throw new Error(`only ${await count(db)} of ${target} events ${digesting ? "stored" : "queued"} after 10 minutes`);
}

function loadNote(): string {
  const [l1, l5] = os.loadavg();
  return `machine load average ${l1?.toFixed(1)} (1 min), ${l5?.toFixed(1)} (5 min) on ${os.cpus().length} cores`;
}

interface Round {
  bare: LoadResult;
  errata: LoadResult;
  rss: number;
  /** events digested per second, from the start of the Errata run to the last event stored */
  digested: number;
}

async function benchIngest(args: Args, loader: Loader, templates: EnvelopeTemplate[], bodies: Map<string, string>): Promise<void> {
  console.log(
    `\nIngest: ${args.connections} connections, ${args.duration} s per run, ${args.rounds} rounds, bare and Errata alternated (Node ${process.version})`,
  );
  const database = await benchDatabase(args);
  const bare = await startBare();
  const errata = await startErrata(errataOpts(args, database.env));
  const db = openErrataDb(errata);
  // After start: nothing received yet, the digest's primary thread only (5 s for its first jobs).
  await sleep(5000);
  const idleStart = rssOf(errata.pid);
  const rounds = new Map<string, Round[]>(templates.map((t) => [t.name, []]));
  let idleBefore = 0;
  let idleAfter = 0;
  let idleSoon = 0;
  let accepted = 0;
  try {
    const url = ingestUrl(errata);
    const first = bodies.get(templates[0]?.name ?? "") as string;
    // Warm-up: JIT, caches, the first issue created; then let the digest drain.
    await loader.run(bare.url, first, { connections: args.connections, duration: 2 });
    accepted += (await loader.run(url, first, { connections: 4, duration: 2 })).ok;
    await waitStored(db, accepted, args);
    await sleep(2000);
    idleBefore = rssOf(errata.pid);
    console.log(`before: ${loadNote()}`);
    for (let r = 1; r <= args.rounds; r++) {
      for (const tpl of templates) {
        const body = bodies.get(tpl.name) as string;
        const b = await loader.run(bare.url, body, { connections: args.connections, duration: args.duration });
        const sampler = sampleRss(errata.pid);
        const t0 = performance.now();
        const e = await loader.run(url, body, { connections: args.connections, duration: args.duration });
        accepted += e.ok;
        if (e.failed > 0) {
          const exit = errata.proc.exitCode === null ? "running" : `exited with ${errata.proc.exitCode}`;
          console.log(`!! ${e.failed} failed requests (Errata ${exit}); server log tail:\n${errata.logs().slice(-1500)}`);
        }
        await waitStored(db, accepted, args);
        const digested = e.ok / ((performance.now() - t0) / 1000);
        const rss = sampler.stop();
        rounds.get(tpl.name)?.push({ bare: b, errata: e, rss, digested });
        console.log(
          `round ${r} ${tpl.name}: bare ${b.rps.toFixed(0)} req/s, Errata ${e.rps.toFixed(0)} req/s (${pct(e.rps, b.rps)}, p99 ${e.p99} ms, ${e.ok} accepted, ${e.failed} failed), ${digested.toFixed(0)} events/s digested`,
        );
      }
    }
    await sleep(3000);
    idleSoon = rssOf(errata.pid);
    // The quiet trim (src/native-heap.ts) runs 5-10 s after the last commit, once the digest
    // helpers have left (5 s idle), and at most every 30 s (the rounds' pauses trimmed already):
    // "idle" is what a quiet server settles at.
    await sleep(IDLE_SETTLE_MS);
    idleAfter = rssOf(errata.pid);
    console.log(`after: ${loadNote()}`);
  } finally {
    await db.close();
    await bare.stop();
    await errata.stop();
    await database.drop();
    fs.rmSync(errata.dataDir, { recursive: true, force: true });
  }

  console.log(`\nMedians of ${args.rounds} rounds (load generator: ${loader.describe}):`);
  const w = [8, 8, 10, 9, 9, 9, 8, 9, 12];
  console.log(row(["payload", "bytes", "server", "req/s", "p50 ms", "p99 ms", "failed", "ratio", "digested/s"], w));
  for (const tpl of templates) {
    const rs = rounds.get(tpl.name) ?? [];
    const m = (f: (x: Round) => number) => median(rs.map(f));
    console.log(
      row(
        [
          tpl.name,
          tpl.size,
          "bare",
          m((x) => x.bare.rps).toFixed(0),
          m((x) => x.bare.p50),
          m((x) => x.bare.p99),
          m((x) => x.bare.failed),
          "",
          "",
        ],
        w,
      ),
    );
    console.log(
      row(
        [
          tpl.name,
          tpl.size,
          "errata",
          m((x) => x.errata.rps).toFixed(0),
          m((x) => x.errata.p50),
          m((x) => x.errata.p99),
          m((x) => x.errata.failed),
          `${m((x) => (100 * x.errata.rps) / x.bare.rps).toFixed(0)} %`,
          m((x) => x.digested).toFixed(0),
        ],
        w,
      ),
    );
    console.log(`  Errata RSS max under load: ${fmtBytes(Math.max(...rs.map((x) => x.rss)))}`);
  }
  const peak = Math.max(...[...rounds.values()].flat().map((x) => x.rss));
  console.log(
    `Errata RSS idle: ${fmtBytes(idleStart)} right after start, ${fmtBytes(idleBefore)} after the warm-up; after the load (backlog drained) ${fmtBytes(idleSoon)} at 3 s, ${fmtBytes(idleAfter)} at ${(3000 + IDLE_SETTLE_MS) / 1000} s.`,
  );
  console.log(
    `Errata RSS on ${args.postgres ? "PostgreSQL" : "SQLite"}: idle ${fmtBytes(idleStart)} after start (${verdict(idleStart, IDLE_RSS_TARGET)}), ${fmtBytes(idleAfter)} settled after the load (${verdict(idleAfter, IDLE_RSS_TARGET)}); peak under load ${fmtBytes(peak)} (${verdict(peak, LOAD_RSS_TARGET)}).`,
  );
  console.log("Targets: ratio ≥ 50 % (5 KB) / ≥ 35 % (50 KB), p99 ≤ 20 ms at 64 connections, RSS ≤ 150 MB idle, ≤ 300 MB under load.");
}

function pct(a: number, b: number): string {
  return `${((100 * a) / b).toFixed(0)} %`;
}

/** Raw better-sqlite3: the same payloads inserted in batches of 500 per transaction, WAL + NORMAL. */
function rawInsertCeiling(tpl: EnvelopeTemplate, n: number): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-raw-"));
  const db = new Database(path.join(dir, "raw.db"));
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec("CREATE TABLE events (id INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL)");
    const stmt = db.prepare("INSERT INTO events (event_id, payload) VALUES (?, ?)");
    const insert = db.transaction((rows: Array<{ id: string; body: Buffer }>) => {
      for (const r of rows) stmt.run(r.id, r.body);
    });
    const t0 = performance.now();
    for (let done = 0; done < n; done += 500) {
      insert(Array.from({ length: Math.min(500, n - done) }, () => tpl.next()));
    }
    return n / ((performance.now() - t0) / 1000);
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function benchE2e(args: Args, loader: Loader, templates: EnvelopeTemplate[], bodies: Map<string, string>): Promise<void> {
  console.log(
    `\nEnd to end: N events over HTTP (${args.connections} connections) while the worker digests; the clock stops when the last is stored. ${args.rounds} rounds, alternated with the raw-insert ceiling.`,
  );
  const w = [8, 8, 10, 12, 12, 10, 10];
  const lines: string[] = [row(["payload", "events", "ingest/s", "digested/s", "raw insert/s", "ratio", "RSS max"], w)];
  for (const tpl of templates) {
    const n = args.events ?? (tpl.size > 20_000 ? 5_000 : 20_000);
    const database = await benchDatabase(args);
    const errata = await startErrata(errataOpts(args, database.env));
    const db = openErrataDb(errata);
    const body = bodies.get(tpl.name) as string;
    const rounds: Array<{ ingest: number; digested: number; raw: number; rss: number }> = [];
    let accepted = 0;
    try {
      const url = ingestUrl(errata);
      accepted += (await loader.run(url, body, { connections: 4, amount: 200 })).ok;
      await waitStored(db, accepted, args);
      console.log(`${tpl.name} before: ${loadNote()}`);
      for (let r = 1; r <= args.rounds; r++) {
        const raw = rawInsertCeiling(tpl, n);
        const sampler = sampleRss(errata.pid);
        const cpu0 = cpuOf(errata.pid);
        const t0 = performance.now();
        const sent = await loader.run(url, body, { connections: args.connections, amount: n });
        const tSent = performance.now();
        if (sent.failed > 0) console.log(`!! ${sent.failed} failed requests; server log tail:\n${errata.logs().slice(-2000)}`);
        accepted += sent.ok;
        await waitStored(db, accepted, args);
        const digested = sent.ok / ((performance.now() - t0) / 1000);
        const x = { ingest: sent.ok / ((tSent - t0) / 1000), digested, raw, rss: sampler.stop() };
        rounds.push(x);
        const cpu = cpuDelta(cpu0, cpuOf(errata.pid));
        const total = cpu.reduce((a, c) => a + c.secs, 0);
        console.log(
          `round ${r} ${tpl.name}: ${x.digested.toFixed(0)} events/s digested (ingest ${x.ingest.toFixed(0)}/s), raw insert ${x.raw.toFixed(0)}/s; Errata CPU ${((total * 1e6) / sent.ok).toFixed(0)} µs/event: ${cpu
            .map((c) => `${c.thread} ${((c.secs * 1e6) / sent.ok).toFixed(0)}`)
            .join(", ")}`,
        );
      }
      console.log(`${tpl.name} after: ${loadNote()}`);
    } finally {
      await db.close();
      await errata.stop();
      await database.drop();
      fs.rmSync(errata.dataDir, { recursive: true, force: true });
    }
    const m = (f: (x: (typeof rounds)[number]) => number) => median(rounds.map(f));
    lines.push(
      row(
        [
          tpl.name,
          n,
          m((x) => x.ingest).toFixed(0),
          m((x) => x.digested).toFixed(0),
          m((x) => x.raw).toFixed(0),
          `${m((x) => (100 * x.digested) / x.raw).toFixed(1)} %`,
          fmtBytes(Math.max(...rounds.map((x) => x.rss))),
        ],
        w,
      ),
    );
  }
  console.log(`\nMedians (load generator: ${loader.describe}):`);
  console.log(lines.join("\n"));
  console.log("\nTargets: ≥ 4,000 events/s digested for the 5 KB event, ≥ 1,500/s for the 50 KB event.");
}

function errataOpts(args: Args, database: Record<string, string> = {}): { nodeArgs: string[]; env: Record<string, string> } {
  return {
    nodeArgs: [...cpuProfArgs(args.cpuProf), ...args.nodeArgs],
    env: { ...database, ...(args.roles ? { ERRATA_ROLES: args.roles } : {}), ...args.env },
  };
}

async function main(): Promise<void> {
  const args = readArgs();
  if (args.cpuProf) console.log(`CPU profiles → ${path.join(ROOT, ".tmp", "profiles")}`);
  const loader = makeLoader(args.loader);
  console.log(`Load generator: ${loader.describe}`);
  // The bench runs the production build: (re)build when it is missing or older than the sources.
  const ensureBuildModule = "../scripts/ensure-build.mjs";
  ((await import(ensureBuildModule)) as { ensureBuild(): void }).ensureBuild();
  let templates = loadTemplates();
  if (args.only) templates = templates.filter((t) => t.name === args.only);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-bodies-"));
  const bodies = new Map(templates.map((t) => [t.name, t.writeWithoutIds(dir)]));
  try {
    if (args.e2e) await benchE2e(args, loader, templates, bodies);
    else await benchIngest(args, loader, templates, bodies);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
