/**
 * Builds a Next.js fixture app in production mode (`next build`) from a copy under .tmp/ — the
 * build writes .next/ and next-env.d.ts, which must stay out of the repository's type check and
 * lint — and runs it with `next start` on a free loopback port.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { eventually, freePort, ROOT, sleep } from "./server.js";

const execFileP = promisify(execFile);
const NEXT_BIN = path.join(ROOT, "node_modules/next/dist/bin/next");

export interface NextApp {
  url: string;
  buildLog: string;
  logs(): string;
  stop(): Promise<void>;
}

export async function buildAndStartNextApp(opts: {
  fixture: string;
  name: string;
  env: Record<string, string>;
  buildTimeoutMs?: number;
}): Promise<NextApp> {
  const appDir = path.join(ROOT, ".tmp", `${opts.name}-${process.pid}`);
  fs.rmSync(appDir, { recursive: true, force: true });
  fs.cpSync(opts.fixture, appDir, { recursive: true, filter: (src) => !/[\\/](\.next|node_modules)$/.test(src) });
  const env = { ...opts.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ERRATA_REPO_ROOT: ROOT } as NodeJS.ProcessEnv;

  let buildLog = "";
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [NEXT_BIN, "build", appDir], {
      cwd: appDir,
      env,
      timeout: opts.buildTimeoutMs ?? 200_000,
      maxBuffer: 16 << 20,
    });
    buildLog = stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`next build failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = "";
  const proc: ChildProcess = spawn(process.execPath, [NEXT_BIN, "start", appDir, "-p", String(port), "-H", "127.0.0.1"], {
    cwd: appDir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc.stdout?.on("data", (d: Buffer) => {
    log += d;
  });
  proc.stderr?.on("data", (d: Buffer) => {
    log += d;
  });
  const stop = async () => {
    if (proc.exitCode === null) {
      const exited = new Promise<void>((r) => proc.once("exit", () => r()));
      proc.kill("SIGTERM");
      await Promise.race([exited, sleep(10_000)]);
      if (proc.exitCode === null) proc.kill("SIGKILL");
    }
    fs.rmSync(appDir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (proc.exitCode !== null) throw new Error(`next start exited:\n${log}`);
        return (await fetch(`${url}/`)).ok;
      },
      60_000,
      "the Next.js app to answer",
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, buildLog, logs: () => log, stop };
}
