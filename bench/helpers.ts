/**
 * Bench plumbing: the real Errata server as a child process (`node dist/cli.mjs start`) with its
 * own data directory, a bare `node:http` server as the ceiling, RSS sampling from /proc, and real
 * recorded envelopes whose event id is rewritten per request (so nothing is a duplicate).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const execFileP = promisify(execFile);
export const ROOT = path.resolve(import.meta.dirname, "..");
export const CLI = path.join(ROOT, "dist", "cli.mjs");
export const CORPUS = process.env.ERRATA_CORPUS ?? path.resolve(ROOT, "../shared/corpus");
export const NODE_CAPTURES = path.join(CORPUS, "sdk-captures", "node-sdk-and-sentry-cli-3");

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in bytes (Linux /proc), or 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds (user + system) each thread of a process has used (/proc/PID/task/TID/stat), keyed
 * by what the thread is: Node names every OS thread "node", so the main thread is told by its id
 * (the pid) and the digest threads by their niceness (WORKER_NICE, set only on them). Differences
 * of two readings say where a run's CPU went.
 */
/**
 * The fields after "(comm)" of a /proc stat file (proc(5): state is [0], utime [11], stime [12],
 * nice [16]), and the CPU seconds they count (clock ticks, USER_HZ = 100 on Linux).
 */
export function procStat(file: string): { fields: string[]; cpuSecs: number } {
  const stat = fs.readFileSync(file, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { fields, cpuSecs: (Number(fields[11]) + Number(fields[12])) / 100 };
}

export function cpuOf(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const { fields, cpuSecs } = procStat(`/proc/${pid}/task/${tid}/stat`);
      const kind = Number(tid) === pid ? "main" : Number(fields[16]) > 0 ? "digest" : "other";
      out.set(`${kind}#${tid}`, cpuSecs);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * CPU used between two cpuOf readings: the main thread (web + ingest), each digest thread, and
 * every other thread summed (V8's GC and compiler helpers, the queue writer, libuv's pool).
 */
export function cpuDelta(before: Map<string, number>, after: Map<string, number>): Array<{ thread: string; secs: number }> {
  const byLabel = new Map<string, number>();
  for (const [key, secs] of after) {
    const kind = key.slice(0, key.indexOf("#"));
    const label = kind === "digest" ? key : kind;
    byLabel.set(label, (byLabel.get(label) ?? 0) + secs - (before.get(key) ?? 0));
  }
  return [...byLabel].map(([thread, secs]) => ({ thread, secs })).sort((a, b) => b.secs - a.secs);
}

/** Samples RSS every `everyMs` until stopped; returns the maximum seen. */
export function sampleRss(pid: number, everyMs = 250): { stop(): number } {
  let max = rssOf(pid);
  const timer = setInterval(() => {
    max = Math.max(max, rssOf(pid));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, rssOf(pid));
    },
  };
}

export interface Child {
  url: string;
  pid: number;
  proc: ChildProcess;
  stop(): Promise<void>;
  logs(): string;
}

async function waitFor(url: string, proc: ChildProcess, logs: () => string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`child exited with ${proc.exitCode}:\n${logs()}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer in time:\n${logs()}`);
}

function stopper(proc: ChildProcess): () => Promise<void> {
  return async () => {
    if (proc.exitCode !== null) return;
    const exited = new Promise<void>((r) => proc.once("exit", () => r()));
    proc.kill("SIGTERM");
    await Promise.race([exited, sleep(15_000)]);
    if (proc.exitCode === null) proc.kill("SIGKILL");
  };
}

/** The ceiling: a bare node:http server that reads the whole body and answers 200 `{}`. */
export async function startBare(): Promise<Child> {
  const port = await freePort();
  const source = `
    const http = require("node:http");
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        Buffer.concat(chunks);
        res.writeHead(200, { "content-type": "application/json", "content-length": "2" });
        res.end("{}");
      });
    });
    server.keepAliveTimeout = 65000;
    server.listen(${port}, "127.0.0.1");
  `;
  const proc = spawn(process.execPath, ["-e", source], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => {
    out += d;
  });
  proc.stderr?.on("data", (d: Buffer) => {
    out += d;
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/`, proc, () => out);
  return { url, pid: proc.pid ?? 0, proc, stop: stopper(proc), logs: () => out };
}

export interface ErrataChild extends Child {
  dataDir: string;
  dbFile: string;
  dsn: string;
  projectId: number;
  publicKey: string;
  env: Record<string, string>;
}

/** Starts `node dist/cli.mjs start` on SQLite in a fresh data dir and creates a project. */
/**
 * How `npm start` and the `errata` bin run Node (package.json, bin/errata.mjs): a 4 MB semi-space
 * keeps each thread's young generation small (about 50 MB less RSS across the three isolates:
 * web+ingest, digest, queue writer) for a few more scavenges; two malloc arenas instead of one per
 * thread keep freed native memory from lingering (about 10 MB idle, 60 MB after load). No parallel
 * scavenge: on two cores V8's helper threads spent more than the scavenges they shared
 * (docs/scaling.md, sixth session). Old generations grow by 25 % past what a full GC left, not V8's
 * dynamic 1.1-4x: under bench:ingest the four isolates' pages held 119 MB instead of 155 MB at the
 * peak (28 Nov), at no CPU bench:digest could tell apart.
 */
export const PRODUCT_NODE_ARGS = ["--max-semi-space-size=4", "--no-parallel-scavenge", "--heap-growing-percent=25", "--expose-gc"];
/** Node flags that make an Errata process write a .cpuprofile per thread into .tmp/profiles/ (none when off). */
export function cpuProfArgs(enabled: boolean): string[] {
  if (!enabled) return [];
  const dir = path.join(ROOT, ".tmp", "profiles");
  fs.mkdirSync(dir, { recursive: true });
  return ["--cpu-prof", `--cpu-prof-dir=${dir}`];
}

export const PRODUCT_ENV = { MALLOC_ARENA_MAX: "2" };

export async function startErrata(
  opts: { env?: Record<string, string>; nodeArgs?: string[]; dataDir?: string; setup?: boolean } = {},
): Promise<ErrataChild> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first.`);
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-"));
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    ...PRODUCT_ENV,
    ...opts.env,
  };
  const procEnv = env as NodeJS.ProcessEnv;
  const cli = (...args: string[]) => execFileP(process.execPath, [CLI, ...args], { cwd: ROOT, env: procEnv }).then((r) => r.stdout.trim());
  // Migrate and create the project before the server starts, so its key cache starts cold. A
  // further process on the same database (setup: false) skips it.
  let dsn = "http://none@127.0.0.1/0";
  if (opts.setup !== false) {
    await cli("user", "create", "--email", "bench@example.com", "--password", "bench-password-123", "--org", "bench");
    dsn = (await cli("project", "create", "--org", "bench", "--name", "Bench")).split("\n").pop() ?? "";
  }
  const m = /^https?:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn);
  if (!m) throw new Error(`unexpected DSN: ${dsn}`);
  const proc: ChildProcess = spawn(process.execPath, [...PRODUCT_NODE_ARGS, ...(opts.nodeArgs ?? []), CLI, "start"], {
    cwd: ROOT,
    env: procEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => {
    out += d;
  });
  proc.stderr?.on("data", (d: Buffer) => {
    out += d;
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`, proc, () => out);
  return {
    url,
    pid: proc.pid ?? 0,
    proc,
    stop: stopper(proc),
    logs: () => out,
    dataDir,
    dbFile: path.join(dataDir, "errata.db"),
    dsn,
    projectId: Number(m[2]),
    publicKey: m[1],
    env,
  };
}

/**
 * A recorded envelope whose event id (32 hex, in the envelope header and the event) is replaced
 * per request, so every request is a distinct event.
 */
export class EnvelopeTemplate {
  readonly bytes: Buffer;
  private readonly offsets: number[];
  private seq = 0;
  private readonly prefix: string;

  constructor(
    readonly name: string,
    bytes: Buffer,
  ) {
    this.bytes = bytes;
    const head = JSON.parse(bytes.subarray(0, bytes.indexOf(0x0a)).toString("utf8")) as { event_id: string };
    const id = Buffer.from(head.event_id);
    this.offsets = [];
    for (let i = bytes.indexOf(id); i !== -1; i = bytes.indexOf(id, i + 1)) this.offsets.push(i);
    // Distinct per run and per template: runs on the same database never collide.
    this.prefix = `${process.pid.toString(16).padStart(6, "0").slice(-6)}${Date.now().toString(16).slice(-8)}${name.length.toString(16).padStart(2, "0")}`;
  }

  get size(): number {
    return this.bytes.length;
  }

  /**
   * The envelope without its event id (header and event), written to a file for a load generator
   * in another process: every request is then a new event, Errata giving it a fresh id.
   */
  writeWithoutIds(dir: string): string {
    const id = this.bytes.subarray(this.offsets[0] ?? 0, (this.offsets[0] ?? 0) + 32).toString("latin1");
    const text = this.bytes.toString("utf8").replace(new RegExp(`"event_id":"${id}",|,"event_id":"${id}"`, "g"), "");
    const file = path.join(dir, `${this.name}.envelope`);
    fs.writeFileSync(file, text);
    return file;
  }

  /** A copy carrying a fresh event id. */
  next(): { id: string; body: Buffer } {
    const id = this.prefix + (this.seq++).toString(16).padStart(32 - this.prefix.length, "0");
    const body = Buffer.from(this.bytes);
    for (const o of this.offsets) body.write(id, o, "latin1");
    return { id, body };
  }
}

export function loadTemplates(): EnvelopeTemplate[] {
  return [
    new EnvelopeTemplate("5kb", fs.readFileSync(path.join(NODE_CAPTURES, "02_POST_api_42_envelope.body"))),
    new EnvelopeTemplate("50kb", fs.readFileSync(path.join(NODE_CAPTURES, "04_POST_api_42_envelope.decoded"))),
  ];
}

export function fmtBytes(n: number): string {
  return `${(n / 1024 / 1024).toFixed(0)} MB`;
}

/** A fresh, empty PostgreSQL database for one bench point (`drop` removes it, connections and all). */
export async function createPostgresDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `errata_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
      await c.end();
    },
  };
}
