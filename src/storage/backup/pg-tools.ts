/**
 * PostgreSQL's own dump tools, driven as child processes: `pg_dump` in custom format (compressed,
 * every table including `blobs`, consistent as one snapshot) and `pg_restore` into an empty
 * database. Their absence is a catalogue error naming what to install.
 */
import { spawn } from "node:child_process";
import { AppError } from "../../core/errors";

/**
 * The URL without its password, and the password for PGPASSWORD: a command line is visible to
 * every user of the machine (ps), the environment is not.
 */
export function connectionOf(url: string): { dbname: string; env: Record<string, string> } {
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = "";
  return { dbname: u.toString(), env: password ? { PGPASSWORD: password } : {} };
}

function run(tool: "pg_dump" | "pg_restore", url: string, args: string[]): Promise<void> {
  const { dbname, env } = connectionOf(url);
  return new Promise((resolve, reject) => {
    const child = spawn(tool, [`--dbname=${dbname}`, ...args], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 8000) stderr += d.toString();
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") reject(new AppError("backup_tool_missing", `${tool} was not found on PATH: ${AppErrorMessage}`));
      else reject(err);
    });
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${tool} exited with ${code}: ${stderr.trim()}`));
    });
  });
}

const AppErrorMessage =
  "install the PostgreSQL client tools of the server's major version (Debian/Ubuntu: apt-get install postgresql-client; Alpine: apk add postgresql-client).";

/**
 * The database as one custom-format dump file. `snapshot` (from pg_export_snapshot) makes the dump
 * see exactly what the caller's open transaction sees, so the manifest's counts match the dump.
 */
export function pgDump(url: string, outFile: string, snapshot?: string): Promise<void> {
  const args = ["--format=custom", "--no-owner", "--no-privileges", `--file=${outFile}`];
  if (snapshot) args.push(`--snapshot=${snapshot}`);
  return run("pg_dump", url, args);
}

/** A custom-format dump into an empty database, all or nothing (one transaction). */
export function pgRestore(url: string, dumpFile: string): Promise<void> {
  return run("pg_restore", url, ["--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error", dumpFile]);
}
