/**
 * What the README starts, stopped as a person stops it: `npm start` as a real process tree
 * (npm → node), then SIGTERM to npm's pid (`kill <pid>`, a service manager) or SIGINT to the whole
 * process group (Ctrl-C in a terminal). The server must stop gracefully: npm exits 0, nothing of
 * the tree keeps running or listening, and every event ingest acknowledged is digested (the queue
 * is empty), on SQLite and PostgreSQL.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";
import { openDb } from "../src/storage/db";
import { queueDepth } from "../src/storage/queue/queue";
import { CLI, eventually, freePort, ROOT } from "../test/helpers/server";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../test/helpers/test-db";

const execFileP = promisify(execFile);
const EVENTS = 120;

interface Started {
  npm: ChildProcess;
  url: string;
  env: Record<string, string>;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function npmStart(db: TestDatabase): Promise<Started> {
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: db.dataDir,
    LOG_LEVEL: "info",
    NEXT_TELEMETRY_DISABLED: "1",
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
  };
  let out = "";
  // detached: its own process group, as a terminal gives the command it runs
  const npm = spawn("npm", ["start", "--silent"], { cwd: ROOT, env: env as NodeJS.ProcessEnv, detached: true, stdio: "pipe" });
  npm.stdout?.on("data", (d: Buffer) => {
    out += d;
  });
  npm.stderr?.on("data", (d: Buffer) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (npm.exitCode !== null) throw new Error(`npm start exited early:\n${out}`);
      return (await fetch(`${url}/readyz`)).ok;
    },
    120_000,
    "npm start to be ready",
  );
  return { npm, url, env, output: () => out, exited };
}

function post(agent: http.Agent, url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent, headers: { "content-length": String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Sends EVENTS distinct events over a few keep-alive connections; returns the acknowledged ids. */
async function sendEvents(s: Started): Promise<string[]> {
  const run = (...args: string[]) => execFileP(process.execPath, [CLI, ...args], { cwd: ROOT, env: s.env as NodeJS.ProcessEnv });
  await run("user", "create", "--email", "stop@example.com", "--password", "stop-password-123", "--org", "stop");
  const dsn = (await run("project", "create", "--org", "stop", "--name", "Stopper")).stdout.trim().split("\n").pop() ?? "";
  const [, key, projectId] = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn) ?? [];
  const url = `${s.url}/api/${projectId}/envelope/?sentry_key=${key}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const ids = Array.from({ length: EVENTS }, (_, n) => `5709${n.toString(16).padStart(28, "0")}`);
  const statuses = await Promise.all(
    ids.map((id, n) => {
      const event = { event_id: id, message: `stopping ${n % 3}`, level: "error", platform: "node" };
      return post(agent, url, `{"event_id":"${id}"}\n{"type":"event"}\n${JSON.stringify(event)}`);
    }),
  );
  agent.destroy();
  expect(statuses.every((c) => c === 200)).toBe(true);
  return ids;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function portRefuses(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const sock = net.connect(Number(port), "127.0.0.1");
    sock.once("connect", () => {
      sock.destroy();
      resolve(false);
    });
    sock.once("error", () => resolve(true));
  });
}

async function storedAfterStop(db: TestDatabase, ids: string[]): Promise<{ stored: number; queued: number }> {
  const d = openDb(db.config);
  try {
    const rows = await d.kysely.selectFrom("events").select("event_id").where("event_id", "in", ids).execute();
    return { stored: new Set(rows.map((r) => r.event_id)).size, queued: await queueDepth(d) };
  } finally {
    await d.close();
  }
}

// Each signal once, each dialect once (a start with the web role is slow on a busy machine).
const cases: Array<{ dialect: "sqlite" | "postgres"; how: "SIGTERM to npm" | "Ctrl-C (SIGINT to the group)" }> = [
  { dialect: "sqlite", how: "SIGTERM to npm" },
  { dialect: (await postgresAvailable()) ? "postgres" : "sqlite", how: "Ctrl-C (SIGINT to the group)" },
];

describe("stopping what `npm start` started", () => {
  const dbs: TestDatabase[] = [];
  const trees: ChildProcess[] = [];
  afterAll(async () => {
    for (const t of trees) if (t.pid && groupAlive(t.pid)) process.kill(-t.pid, "SIGKILL");
    for (const d of dbs) await d.drop();
  });

  test.each(cases)("$how on $dialect: the server stops gracefully, exit 0, the queue digested", async ({ dialect, how }) => {
    const db = await createTestDatabase(dialect);
    dbs.push(db);
    const s = await npmStart(db);
    trees.push(s.npm);
    const pgid = s.npm.pid ?? 0;
    const ids = await sendEvents(s);
    // at once after the last acknowledgement: the digest may still have a backlog
    if (how === "SIGTERM to npm") process.kill(pgid, "SIGTERM");
    else process.kill(-pgid, "SIGINT");
    const { code, signal } = await s.exited;
    expect({ code, signal }, s.output()).toEqual({ code: 0, signal: null });
    // nothing of the tree is left (npm's shell, node) and nothing listens on the port
    await eventually(async () => !groupAlive(pgid), 5_000, "the process group to be gone");
    expect(await portRefuses(s.url)).toBe(true);
    expect(s.output()).toMatch(/SIG(TERM|INT): stopping Errata/);
    expect(await storedAfterStop(db, ids)).toEqual({ stored: EVENTS, queued: 0 });
  });
});
