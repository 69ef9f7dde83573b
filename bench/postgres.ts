/**
 * `npm run bench:postgres` — Errata scaled out on PostgreSQL: one process with the web and ingest
 * roles, plus 1, 2, … processes with the worker role (`errata start --role worker`), one database.
 * For each worker count, on a fresh database: N events (the 5 KB @sentry/node envelope, no event
 * ids) sent over HTTP by the load generator in its own process, the clock stopped when the last is
 * stored. Prints the curve (events/s digested per worker count) and where the CPU went — the ingest
 * process, the worker processes, PostgreSQL's backends — which says what another worker buys on
 * this machine.
 *
 * Options (node:util parseArgs): --workers 1,2 (the curve), --events N (10000), --connections N (64),
 *   --loader autocannon|wrk, --url postgres://… (admin connection; default the test server's),
 *   --cpu-prof (every Errata process writes a .cpuprofile per thread into .tmp/profiles/).
 * Not a test: figures depend on the machine.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDb } from "../src/storage/db";
import { countEvents } from "../src/storage/events/events";
import { cpuProfArgs, createPostgresDatabase, type ErrataChild, loadTemplates, procStat, sleep, startErrata } from "./helpers";
import { makeLoader } from "./load";

interface Args {
  workers: number[];
  events: number;
  connections: number;
  loader: string;
  url: string;
  cpuProf: boolean;
}

function readArgs(): Args {
  const { values } = parseArgs({
    options: {
      workers: { type: "string", default: "1,2" },
      events: { type: "string", default: "10000" },
      connections: { type: "string", default: "64" },
      loader: { type: "string", default: "autocannon" },
      url: { type: "string", default: process.env.ERRATA_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
      "cpu-prof": { type: "boolean", default: false },
    },
  });
  return {
    workers: String(values.workers)
      .split(",")
      .map(Number)
      .filter((n) => n > 0),
    events: Number(values.events),
    connections: Number(values.connections),
    loader: String(values.loader),
    url: String(values.url),
    cpuProf: values["cpu-prof"],
  };
}

/** CPU ms a process has used so far (all its threads). */
function cpuMs(pid: number): number {
  try {
    return procStat(`/proc/${pid}/stat`).cpuSecs * 1000;
  } catch {
    return 0;
  }
}

/** CPU ms of every PostgreSQL process on the machine (the bench's backends dominate while it runs). */
function postgresCpuMs(): number {
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") total += cpuMs(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function withDatabase<T>(adminUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const database = await createPostgresDatabase(adminUrl);
  try {
    return await fn(database.url);
  } finally {
    await database.drop();
  }
}

interface Point {
  workers: number;
  ingest: number;
  digested: number;
  cpu: { ingest: number; workers: number; postgres: number; wallMs: number };
}

async function runPoint(args: Args, workers: number, bodyFile: string): Promise<Point> {
  const loader = makeLoader(args.loader);
  return withDatabase(args.url, async (databaseUrl) => {
    const env = { DATABASE_URL: databaseUrl };
    const nodeArgs = cpuProfArgs(args.cpuProf);
    const front = await startErrata({ env: { ...env, ERRATA_ROLES: "web,ingest" }, nodeArgs });
    const back: ErrataChild[] = [];
    const db = openDb({ kind: "postgres", url: databaseUrl }, { poolSize: 2 });
    try {
      for (let i = 0; i < workers; i++) back.push(await startErrata({ env: { ...env, ERRATA_ROLES: "worker" }, setup: false, nodeArgs }));
      const url = `${front.url}/api/${front.projectId}/envelope/?sentry_version=7&sentry_key=${front.publicKey}`;
      // Warm up (JIT, key cache, connections), then measure from a drained queue.
      const warm = await loader.run(url, bodyFile, { connections: 4, amount: 200 });
      await waitStored(db, warm.ok);
      const cpu0 = { ingest: cpuMs(front.pid), workers: sum(back.map((b) => cpuMs(b.pid))), postgres: postgresCpuMs() };
      const t0 = performance.now();
      const sent = await loader.run(url, bodyFile, { connections: args.connections, amount: args.events });
      const tSent = performance.now();
      await waitStored(db, warm.ok + sent.ok);
      const wallMs = performance.now() - t0;
      const point = {
        workers,
        ingest: sent.ok / ((tSent - t0) / 1000),
        digested: sent.ok / (wallMs / 1000),
        cpu: {
          ingest: cpuMs(front.pid) - cpu0.ingest,
          workers: sum(back.map((b) => cpuMs(b.pid))) - cpu0.workers,
          postgres: postgresCpuMs() - cpu0.postgres,
          wallMs,
        },
      };
      if (sent.failed > 0) console.log(`!! ${sent.failed} failed requests`);
      return point;
    } finally {
      await db.close();
      for (const b of back) await b.stop();
      await front.stop();
      for (const c of [front, ...back]) fs.rmSync(c.dataDir, { recursive: true, force: true });
    }
  });
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

async function waitStored(db: ReturnType<typeof openDb>, target: number): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  while ((await countEvents(db)) < target) {
    if (Date.now() > deadline) throw new Error(`only ${await countEvents(db)} of ${target} stored after 10 minutes`);
    await sleep(100);
  }
}

async function main(): Promise<void> {
  const args = readArgs();
  const ensureBuildModule = "../scripts/ensure-build.mjs";
  ((await import(ensureBuildModule)) as { ensureBuild(): void }).ensureBuild();
  const tpl = loadTemplates().find((t) => t.name === "5kb");
  if (!tpl) throw new Error("no 5 KB template in the corpus");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-pg-"));
  const body = tpl.writeWithoutIds(dir);
  console.log(
    `PostgreSQL scale-out: 1 web+ingest process + W worker processes, ${args.events} events of 5 KB, ${args.connections} connections, ${os.cpus().length} cores`,
  );
  const points: Point[] = [];
  try {
    for (const w of args.workers) {
      const p = await runPoint(args, w, body);
      points.push(p);
      console.log(`W=${w}: ${p.digested.toFixed(0)} events/s digested (ingest ${p.ingest.toFixed(0)}/s)`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const base = points[0]?.digested ?? 1;
  console.log("\nworkers  digested/s  speed-up  CPU cores busy: ingest  workers  postgres  (of the wall time)");
  for (const p of points) {
    const cores = (ms: number) => (ms / p.cpu.wallMs).toFixed(2).padStart(6);
    console.log(
      `${String(p.workers).padStart(7)}  ${p.digested.toFixed(0).padStart(10)}  ${(p.digested / base).toFixed(2).padStart(8)}  ${" ".repeat(16)}${cores(p.cpu.ingest)}  ${cores(p.cpu.workers)}  ${cores(p.cpu.postgres)}`,
    );
  }
  console.log(
    "\nRead: a second worker helps while worker CPU is the limit and cores are left; once ingest + workers + PostgreSQL fill the machine's cores, another worker only shares them. Target: ≥ 2,000 events/s with one worker.",
  );
}

await main();
