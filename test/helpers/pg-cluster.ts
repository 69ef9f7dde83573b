/**
 * A throwaway PostgreSQL cluster for fault tests that stop the server itself: `initdb` into a temp
 * directory and `pg_ctl` on a free port, never the machine's shared server. initdb refuses to run
 * as root, so as root the cluster belongs to the `postgres` user (runuser).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./server.js";

export interface ThrowawayCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  adminUrl: string;
  start(): void;
  /** A fast shutdown: connections are cut, committed data is kept. */
  stop(): void;
  destroy(): void;
}

/** The newest PostgreSQL server binaries installed (Debian layout), or undefined. */
export function postgresBinDir(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return undefined;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], "bin") : undefined;
}

export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)");
  const root = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-pg-"));
  const data = path.join(dir, "data");
  if (root) execFileSync("chown", ["postgres:postgres", dir]);
  const run = (tool: string, args: string[]) =>
    root
      ? execFileSync("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args], { stdio: "pipe" })
      : execFileSync(path.join(bin, tool), args, { stdio: "pipe" });
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
  const log = path.join(dir, "server.log");
  const cluster: ThrowawayCluster = {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => run("pg_ctl", ["-D", data, "-o", options, "-l", log, "-w", "start"]),
    stop: () => run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    destroy: () => {
      try {
        cluster.stop();
      } catch {
        // not running
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
