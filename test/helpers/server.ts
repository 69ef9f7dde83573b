/**
 * Starts the real, built Errata (`node dist/cli.mjs start`) as a child process on a free loopback
 * port with its own data directory (and its own PostgreSQL database when asked), and runs the
 * operator CLI against the same configuration.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { createTestDatabase, type TestDatabase } from "./test-db.js";

const execFileP = promisify(execFile);
export const ROOT = path.resolve(import.meta.dirname, "../..");
export const CLI = path.join(ROOT, "dist", "cli.mjs");
export const CHROMIUM = process.env.ERRATA_CHROMIUM ?? "/usr/bin/chromium";

/** libfaketime's settings of this process (empty when it runs on the real clock). */
export function shiftedClockEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => (e[0] === "LD_PRELOAD" || e[0].startsWith("FAKETIME")) && !!e[1]),
  );
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

export interface TestServer {
  url: string;
  env: Record<string, string>;
  db: TestDatabase;
  proc: ChildProcess;
  /** Runs `errata <args>` with this server's configuration; resolves to stdout (trimmed). */
  cli(...args: string[]): Promise<string>;
  stop(): Promise<void>;
  /** SIGKILL, for crash tests. */
  kill(): Promise<void>;
  logs(): string;
}

export async function startServer(
  opts: { dialect?: "sqlite" | "postgres"; env?: Record<string, string>; db?: TestDatabase } = {},
): Promise<TestServer> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it).`);
  const db = opts.db ?? (await createTestDatabase(opts.dialect ?? "sqlite"));
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: db.dataDir,
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    // Browser tests sign in many times from one address.
    LOGIN_MAX_ATTEMPTS: "1000",
    LOGIN_MAX_ATTEMPTS_PER_ADDRESS: "1000",
    LOGIN_ACCOUNT_LOCK_ATTEMPTS: "100000",
    LOGIN_BACKOFF_AFTER: "0",
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    // A run under libfaketime (scripts/clock-boundary.sh) shifts the server's clock with the test's.
    ...shiftedClockEnv(),
    ...opts.env,
  };
  let output = "";
  const proc: ChildProcess = spawn(process.execPath, [CLI, "start"], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"] as const,
  });
  proc.stdout?.on("data", (d: Buffer) => {
    output += d;
  });
  proc.stderr?.on("data", (d: Buffer) => {
    output += d;
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, proc, () => output);

  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  return {
    url,
    env,
    db,
    proc,
    logs: () => output,
    async cli(...args) {
      const { stdout } = await execFileP(process.execPath, [CLI, ...args], { cwd: ROOT, env: env as NodeJS.ProcessEnv });
      return stdout.trim();
    },
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      await Promise.race([exited, sleep(10_000)]);
      if (proc.exitCode === null) proc.kill("SIGKILL");
      if (!opts.db) await db.drop();
    },
    async kill() {
      proc.kill("SIGKILL");
      await exited;
    },
  };
}

async function waitReady(url: string, proc: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`Errata exited with ${proc.exitCode} before becoming ready:\n${logs()}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`Errata did not become ready at ${url}:\n${logs()}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 20_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await sleep(100);
  }
  throw new Error(`Timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
}

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/** True when browser tests can run; under CI a missing Chromium is an error, not a skip. */
export function chromiumAvailable(): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  if (process.env.CI === "true") throw new Error(`Chromium is required under CI but ${CHROMIUM} is missing.`);
  console.warn(`!! ${CHROMIUM} missing: browser test skipped (apt-get install -y chromium).`);
  return false;
}

/** Writes a script under .tmp/ (inside the project, so it resolves node_modules) and runs it with node. */
export async function runNodeScript(
  name: string,
  source: string,
  env: Record<string, string> = {},
): Promise<{ stdout: string; file: string }> {
  const dir = path.join(ROOT, ".tmp");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  const { stdout } = await execFileP(process.execPath, [file], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 });
  return { stdout, file };
}
