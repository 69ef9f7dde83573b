/**
 * Shared by the backup tests: the CLI run against a chosen target, ingest load over real HTTP,
 * and reads of a (restored) database.
 */
import { execFile } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { openDb } from "../../src/storage/db";
import { queueFileOf } from "../../src/storage/queue/file";
import Database from "../../src/storage/sqlite-driver";
import { CLI, ROOT } from "../helpers/server";
import type { TestDatabase } from "../helpers/test-db";

const execFileP = promisify(execFile);

/** The env a CLI or server needs for this database. */
export function envOf(db: TestDatabase): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATA_DIR: db.dataDir,
    LOG_LEVEL: "warn",
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `errata <args>` with `env`; never throws on a non-zero exit (the result says). */
export async function errata(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: env as NodeJS.ProcessEnv,
      maxBuffer: 16 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

export function post(agent: http.Agent, url: string, body: string | Buffer): Promise<number> {
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

export function eventEnvelope(id: string, n: number): string {
  const event = {
    event_id: id,
    message: `backup load ${n % 7}`,
    level: "error",
    platform: "node",
    tags: { n: String(n) },
    extra: { pad: "x".repeat(400) },
  };
  return `{"event_id":"${id}"}\n{"type":"event"}\n${JSON.stringify(event)}`;
}

/**
 * Sends distinct events on `connections` keep-alive connections until `stop()`; `acked` gets every
 * id answered 200, as it is answered.
 */
export function startLoad(url: string, prefix: string, connections = 8): { acked: Set<string>; stop(): Promise<void> } {
  const acked = new Set<string>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let seq = 0;
  let stopping = false;
  const loop = async () => {
    while (!stopping) {
      const n = seq++;
      const id = `${prefix}${n.toString(16).padStart(32 - prefix.length, "0")}`;
      try {
        if ((await post(agent, url, eventEnvelope(id, n))) === 200) acked.add(id);
      } catch {
        return;
      }
    }
  };
  const all = Promise.all(Array.from({ length: connections }, loop));
  return {
    acked,
    async stop() {
      stopping = true;
      await all;
      agent.destroy();
    },
  };
}

/** Rows still queued (acknowledged, undigested) in this database. */
export async function queued(db: TestDatabase): Promise<number> {
  if (db.dialect === "sqlite") {
    const q = new Database(queueFileOf(path.join(db.dataDir, "errata.db")), { readonly: true, fileMustExist: true });
    try {
      return Number(q.prepare("SELECT count(*) FROM queue").pluck().get());
    } finally {
      q.close();
    }
  }
  const c = new pg.Client({ connectionString: db.databaseUrl });
  await c.connect();
  try {
    return Number((await c.query("SELECT count(*)::int AS n FROM queue")).rows[0].n);
  } finally {
    await c.end();
  }
}

/** Opens the database of `db` (not migrating it); close it after. */
export function open(db: TestDatabase) {
  return openDb(db.config, { poolSize: 2 });
}

/** `(code)` at the end of the CLI's error line. */
export function errorCode(r: CliResult): string | undefined {
  return /\(([a-z_]+)\)\s*$/.exec(r.stderr.trim())?.[1];
}
