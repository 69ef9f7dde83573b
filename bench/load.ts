/**
 * The load generator, always in its own process so it is never the bottleneck of the process it
 * measures: the autocannon CLI (from node_modules, default) or `wrk` (Debian: `apt-get install -y
 * wrk`). Both send one constant body per run; the bench's envelopes carry no event id, so every
 * request is a distinct event (Errata gives it a fresh id) and the generator does no per-request
 * JavaScript.
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./helpers";

const execFileP = promisify(execFile);

export type LoaderName = "autocannon" | "wrk";

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** answers that were not 2xx, plus socket errors and timeouts */
  failed: number;
  /** 2xx answers */
  ok: number;
}

export interface LoadOptions {
  connections: number;
  /** seconds; or `amount` requests (autocannon only) */
  duration?: number;
  amount?: number;
}

export interface Loader {
  name: LoaderName;
  describe: string;
  run(url: string, bodyFile: string, opts: LoadOptions): Promise<LoadResult>;
}

const AUTOCANNON_CLI = path.join(ROOT, "node_modules", "autocannon", "autocannon.js");
const USER_AGENT = "sentry.javascript.node/11.12.0";

interface AutocannonJson {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  "2xx": number;
}

function autocannonLoader(): Loader {
  const version = (
    JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", "autocannon", "package.json"), "utf8")) as { version: string }
  ).version;
  return {
    name: "autocannon",
    describe: `autocannon ${version} CLI in its own process (node ${AUTOCANNON_CLI.replace(`${ROOT}/`, "")})`,
    async run(url, bodyFile, opts) {
      const args = [AUTOCANNON_CLI, "--json", "-m", "POST", "-H", `user-agent=${USER_AGENT}`, "-i", bodyFile];
      args.push("-c", String(opts.connections), "-t", "30");
      if (opts.amount !== undefined) args.push("-a", String(opts.amount));
      else args.push("-d", String(opts.duration ?? 10));
      args.push(url);
      const { stdout } = await execFileP(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
      const r = JSON.parse(stdout.slice(stdout.indexOf("{"))) as AutocannonJson;
      return {
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        failed: r.non2xx + r.errors + r.timeouts,
        ok: r["2xx"],
      };
    },
  };
}

function wrkLoader(): Loader {
  let version = "wrk";
  try {
    version = execFileSync("wrk", ["-v"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).split("\n")[0] ?? "wrk";
  } catch (err) {
    // `wrk -v` prints its version and exits 1.
    const out = (err as { stdout?: string }).stdout ?? "";
    if (!out) throw new Error("wrk is not installed: `apt-get install -y wrk` (Debian), or use --loader autocannon.");
    version = out.split("\n")[0] ?? "wrk";
  }
  return {
    name: "wrk",
    // `wrk -v` prints "wrk <version> [epoll] Copyright …": keep the name and version.
    describe: `${version.trim().split(/\s+/).slice(0, 2).join(" ")} in its own process (2 threads)`,
    async run(url, bodyFile, opts) {
      if (opts.amount !== undefined) throw new Error("wrk runs for a duration only; the e2e mode uses --loader autocannon.");
      const script = path.join(os.tmpdir(), `errata-bench-${process.pid}.lua`);
      // Counts non-2xx answers itself: wrk's own summary only counts them as a total.
      fs.writeFileSync(
        script,
        [
          `local f = io.open(${JSON.stringify(bodyFile)}, "rb")`,
          "wrk.method = 'POST'",
          "wrk.body = f:read('*a')",
          "f:close()",
          `wrk.headers['user-agent'] = ${JSON.stringify(USER_AGENT)}`,
        ].join("\n"),
      );
      const { stdout } = await execFileP(
        "wrk",
        ["-t2", `-c${opts.connections}`, `-d${opts.duration ?? 10}s`, "--latency", "--timeout", "30s", "-s", script, url],
        { maxBuffer: 16 * 1024 * 1024 },
      );
      fs.rmSync(script, { force: true });
      return parseWrk(stdout);
    },
  };
}

/** Milliseconds from wrk's `1.23ms` / `456.00us` / `1.20s`. */
function wrkMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(v);
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : n * 60_000;
}

export function parseWrk(out: string): LoadResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
  const p50 = wrkMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? "");
  const p99 = wrkMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? "");
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const errs = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socket = errs ? errs.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return { rps, p50, p99, failed: non2xx + socket, ok: total - non2xx };
}

export function makeLoader(name: string): Loader {
  if (name === "wrk") return wrkLoader();
  if (name === "autocannon") return autocannonLoader();
  throw new Error(`unknown --loader ${name} (autocannon or wrk)`);
}
