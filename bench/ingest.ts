/**
 * `npm run bench:ingest` — ingest throughput of Errata against the ceiling of Node on this machine.
 *
 *   default mode: (a) a bare node:http server that reads the body and answers 200, (b) Errata on
 *     SQLite (`node dist/cli.mjs start`, default roles: web, ingest and the digest worker), both
 *     driven by autocannon (keep-alive, 64 connections) with real @sentry/node envelopes (~8 KB
 *     chained exception, ~46 KB large event), every request a distinct event id. Prints
 *     requests/s, p50/p99, Errata's RSS (idle and under load) and the ratio Errata/bare.
 *   --e2e: events per second fully digested (grouped and stored) — N events sent over HTTP while
 *     the worker digests, clock stopped when the last one is stored — against a baseline of raw
 *     better-sqlite3 batched inserts of the same payloads.
 *
 * Options: --duration S (default 20), --connections N (64), --events N (e2e; per payload),
 *   --only 5kb|50kb, --roles web,ingest (Errata's ERRATA_ROLES; default all three),
 *   --env KEY=VALUE (more Errata settings, repeatable),
 *   --cpu-prof (Errata writes a .cpuprofile per thread into .tmp/profiles/).
 * Not a test: figures depend on the machine. Run `npm run build` first (the bench uses dist/).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import {
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

interface Args {
  duration: number;
  connections: number;
  e2e: boolean;
  events: number | undefined;
  only: string | undefined;
  cpuProf: boolean;
  roles: string | undefined;
  /** extra environment for Errata (`--env KEY=VALUE`, repeatable) */
  env: Record<string, string>;
}

function parseArgs(argv: string[]): Args {
  const get = (name: string): string | undefined => {
    const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (i === -1) return undefined;
    const a = argv[i];
    return a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[i + 1];
  };
  return {
    duration: Number(get("duration") ?? 20),
    connections: Number(get("connections") ?? 64),
    e2e: argv.includes("--e2e"),
    events: get("events") ? Number(get("events")) : undefined,
    only: get("only"),
    cpuProf: argv.includes("--cpu-prof"),
    roles: get("roles"),
    env: Object.fromEntries(
      argv
        .flatMap((a, i) => (a === "--env" && argv[i + 1]?.includes("=") ? [argv[i + 1] as string] : []))
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    ),
  };
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

/** Drives `url` with distinct envelopes from the template, for a duration or a fixed amount. */
async function drive(
  url: string,
  tpl: EnvelopeTemplate,
  opts: { connections: number; duration?: number; amount?: number },
): Promise<LoadResult> {
  const r = await autocannon({
    url,
    connections: opts.connections,
    ...(opts.amount !== undefined ? { amount: opts.amount } : { duration: opts.duration ?? 10 }),
    timeout: 30,
    requests: [
      {
        method: "POST",
        headers: { "user-agent": "sentry.javascript.node/11.12.0" },
        setupRequest: (req) => {
          req.body = tpl.next().body;
          return req;
        },
      },
    ],
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    total: r["2xx"] + r.non2xx,
  };
}

function ingestUrl(e: ErrataChild): string {
  return `${e.url}/api/${e.projectId}/envelope/?sentry_version=7&sentry_key=${e.publicKey}&sentry_client=sentry.javascript.node%2F11.12.0`;
}

function row(cols: Array<string | number>, widths: number[]): string {
  return cols.map((c, i) => String(c).padStart(widths[i] ?? 10)).join(" ");
}

async function benchIngest(args: Args, templates: EnvelopeTemplate[]): Promise<void> {
  console.log(
    `\nIngest: ${args.connections} connections, ${args.duration} s per run, keep-alive (${os.cpus().length} cores, Node ${process.version})\n`,
  );
  const bare = await startBare();
  const bareResults = new Map<string, LoadResult>();
  try {
    for (const tpl of templates) {
      await drive(bare.url, tpl, { connections: args.connections, duration: 2 });
      bareResults.set(tpl.name, await drive(bare.url, tpl, { connections: args.connections, duration: args.duration }));
    }
  } finally {
    await bare.stop();
  }

  const errata = await startErrata(errataOpts(args));
  const results: Array<{ tpl: EnvelopeTemplate; r: LoadResult; rss: number }> = [];
  let idleBefore = 0;
  let idleAfter = 0;
  try {
    const url = ingestUrl(errata);
    await drive(url, templates[0], { connections: 4, amount: 200 });
    await sleep(2000);
    idleBefore = rssOf(errata.pid);
    for (const tpl of templates) {
      const sampler = sampleRss(errata.pid);
      const r = await drive(url, tpl, { connections: args.connections, duration: args.duration });
      results.push({ tpl, r, rss: sampler.stop() });
    }
    await sleep(5000);
    idleAfter = rssOf(errata.pid);
  } finally {
    await errata.stop();
    fs.rmSync(errata.dataDir, { recursive: true, force: true });
  }

  const w = [8, 8, 10, 9, 9, 9, 10, 9, 8];
  console.log(row(["payload", "bytes", "server", "req/s", "p50 ms", "p99 ms", "non-2xx", "RSS max", "ratio"], w));
  for (const { tpl, r, rss } of results) {
    const b = bareResults.get(tpl.name) as LoadResult;
    console.log(row([tpl.name, tpl.size, "bare", b.rps.toFixed(0), b.p50, b.p99, b.non2xx + b.errors, "", ""], w));
    console.log(
      row(
        [
          tpl.name,
          tpl.size,
          "errata",
          r.rps.toFixed(0),
          r.p50,
          r.p99,
          r.non2xx + r.errors,
          fmtBytes(rss),
          `${((100 * r.rps) / b.rps).toFixed(0)} %`,
        ],
        w,
      ),
    );
  }
  console.log(`\nErrata RSS idle: ${fmtBytes(idleBefore)} before load, ${fmtBytes(idleAfter)} 5 s after (worker may still be draining).`);
  console.log("Targets: ratio ≥ 50 %, p99 ≤ 20 ms at 64 connections, RSS ≤ 400 MB under load and ≤ 200 MB idle.");
}

/** Raw better-sqlite3: the same payloads inserted in batches of 500 per transaction, WAL + NORMAL. */
function baselineInserts(tpl: EnvelopeTemplate, n: number): number {
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
      const batch = Array.from({ length: Math.min(500, n - done) }, () => tpl.next());
      insert(batch);
    }
    return n / ((performance.now() - t0) / 1000);
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function countEvents(dbFile: string): Promise<number> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return Number((db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n);
  } finally {
    db.close();
  }
}

async function benchE2e(args: Args, templates: EnvelopeTemplate[]): Promise<void> {
  console.log(
    `\nEnd to end: N events over HTTP (${args.connections} connections) while the worker digests; clock stops when the last is stored.\n`,
  );
  const w = [8, 8, 10, 12, 12, 12, 10, 12];
  const lines: string[] = [row(["payload", "events", "ingest/s", "digested/s", "raw insert/s", "ratio", "RSS max", "stored"], w)];
  for (const tpl of templates) {
    const n = args.events ?? (tpl.size > 20_000 ? 5_000 : 20_000);
    const errata = await startErrata(errataOpts(args));
    try {
      const url = ingestUrl(errata);
      const sampler = sampleRss(errata.pid);
      const t0 = performance.now();
      const sent = await drive(url, tpl, { connections: args.connections, amount: n });
      const tSent = performance.now();
      let stored = 0;
      const deadline = Date.now() + 10 * 60_000;
      while (Date.now() < deadline) {
        stored = await countEvents(errata.dbFile);
        if (stored >= n - sent.non2xx - sent.errors) break;
        await sleep(50);
      }
      const tDone = performance.now();
      const rss = sampler.stop();
      if (sent.non2xx + sent.errors > 0) {
        console.log(
          `!! ${sent.non2xx} non-2xx answers and ${sent.errors} errors/timeouts; server log tail:\n${errata.logs().slice(-2000)}`,
        );
      }
      const digested = stored / ((tDone - t0) / 1000);
      const raw = baselineInserts(tpl, n);
      lines.push(
        row(
          [
            tpl.name,
            n,
            (n / ((tSent - t0) / 1000)).toFixed(0),
            digested.toFixed(0),
            raw.toFixed(0),
            `${((100 * digested) / raw).toFixed(1)} %`,
            fmtBytes(rss),
            stored,
          ],
          w,
        ),
      );
    } finally {
      await errata.stop();
      fs.rmSync(errata.dataDir, { recursive: true, force: true });
    }
  }
  console.log(lines.join("\n"));
  console.log("\nTargets: ≥ 10,000 events/s digested for the 5 KB event, ≥ 2,000/s for the 50 KB event.");
}

function errataOpts(args: Args): { nodeArgs: string[]; env: Record<string, string> } {
  return { nodeArgs: profArgs(args), env: { ...(args.roles ? { ERRATA_ROLES: args.roles } : {}), ...args.env } };
}

function profArgs(args: Args): string[] {
  if (!args.cpuProf) return [];
  const dir = path.join(ROOT, ".tmp", "profiles");
  fs.mkdirSync(dir, { recursive: true });
  console.log(`CPU profiles → ${dir}`);
  return ["--cpu-prof", `--cpu-prof-dir=${dir}`];
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // The bench runs the production build: (re)build when it is missing or older than the sources.
  const ensureBuildModule = "../scripts/ensure-build.mjs";
  ((await import(ensureBuildModule)) as { ensureBuild(): void }).ensureBuild();
  let templates = loadTemplates();
  if (args.only) templates = templates.filter((t) => t.name === args.only);
  if (args.e2e) await benchE2e(args, templates);
  else await benchIngest(args, templates);
}

await main();
