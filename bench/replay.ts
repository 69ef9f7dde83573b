/**
 * `npm run bench:replay` — session replay beside errors (issue 40), on the production build and
 * SQLite (blobs as files):
 *
 *   1. errors with and without replays: a fresh Errata per run; autocannon (bench/load.ts, its own
 *      process) sends N error events (the 5 KB Node SDK envelope) as fast as Errata takes them,
 *      alone ("baseline") or while bench/replay-load.ts (another process) runs SESSIONS browser
 *      sessions that each send one ~83 KB segment every 5 s (1 MB per minute, as sent: the heavy end
 *      of what the SDK sends; ~10:1 inflated; one segment in eight carries a request with secrets
 *      the scrubber removes). Errors' ingest/s (accepted over the send time) and
 *      digested/s (until the last is stored) with replays over without, and the server's peak RSS
 *      with replays minus without. Rounds alternate the two.
 *   2. a 10-minute replay (120 such segments) sent through ingest, then: server time to the first
 *      segment (request to first body byte of Sentry's recording-segments download, per_page=1, as
 *      the player asks) and, in headless Chromium signed in, the player's first frame (navigation
 *      to the replay page until the player has drawn the recording).
 *
 * Targets: errors' ingest and digest within 10 % of the run without replays, RSS within 50 MB;
 * first frame ≤ 1 s, server time to the first segment ≤ 100 ms. Not a test: figures depend on the
 * machine (its load average is printed). Options: --events N (20000), --sessions N (50),
 * --segment BYTES (85000), --rounds N (2), --connections N (32), --skip-errors, --skip-player.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { chromium } from "playwright-core";
import { type Db, openDb } from "../src/storage/db";
import { countEvents } from "../src/storage/events/events";
import { getReplay } from "../src/storage/replays/replays";
import { CLI, cpuDelta, cpuOf, type ErrataChild, fmtBytes, loadTemplates, ROOT, sampleRss, sleep, startErrata } from "./helpers";
import { makeLoader } from "./load";
import { segmentBody, segmentEnvelope } from "./replay-segments";

const execFileP = promisify(execFile);
const { values } = parseArgs({
  options: {
    events: { type: "string", default: "20000" },
    sessions: { type: "string", default: "50" },
    segment: { type: "string", default: "85000" },
    rounds: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
    "skip-errors": { type: "boolean", default: false },
    "skip-player": { type: "boolean", default: false },
  },
});
const EVENTS = Number(values.events);
const SESSIONS = Number(values.sessions);
const SEGMENT = Number(values.segment);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const CHROMIUM = process.env.ERRATA_CHROMIUM ?? "/usr/bin/chromium";

function loadNote(): string {
  const [l1, l5] = os.loadavg();
  return `load average ${l1?.toFixed(1)} (1 min), ${l5?.toFixed(1)} (5 min) on ${os.cpus().length} cores`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}

function envelopeUrl(e: ErrataChild): string {
  return `${e.url}/api/${e.projectId}/envelope/?sentry_version=7&sentry_key=${e.publicKey}`;
}

/** The server's own data, read through src/storage (the bench only counts). */
function openErrataDb(e: ErrataChild): Db {
  return openDb({ kind: "sqlite", file: e.dbFile, synchronous: "NORMAL" });
}

async function waitStored(db: Db, target: number): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  while ((await countEvents(db)) < target) {
    if (Date.now() > deadline) throw new Error(`only ${await countEvents(db)} of ${target} events stored after 10 minutes`);
    await sleep(50);
  }
}

/** The replay generator in its own process; `stop()` ends it and answers what it sent. */
function startReplayLoad(url: string, seconds: number): { proc: ChildProcess; stop(): Promise<Record<string, unknown>> } {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "bench", "replay-load.ts"), url, String(SESSIONS), String(SEGMENT), String(seconds)],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => {
    out += d;
  });
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  return {
    proc,
    async stop() {
      proc.kill("SIGTERM");
      await exited;
      return JSON.parse(out.trim().split("\n").pop() || "{}") as Record<string, unknown>;
    },
  };
}

interface ErrorRun {
  ingest: number;
  digested: number;
  rss: number;
  /** Errata's CPU (all threads) per error event over the run, µs: steadier than rates on a busy machine */
  cpuPerEvent: number;
  replays?: Record<string, unknown>;
}

async function errorsRun(withReplays: boolean, bodyFile: string): Promise<ErrorRun> {
  const errata = await startErrata();
  const db = openErrataDb(errata);
  const loader = makeLoader("autocannon");
  try {
    const url = envelopeUrl(errata);
    // Warm-up: the key cache, the digest thread, SQLite's pages.
    const warm = await loader.run(url, bodyFile, { connections: 4, amount: 500 });
    await waitStored(db, warm.ok);
    const replays = withReplays ? startReplayLoad(url, 600) : undefined;
    // Replays flowing for a few segments before the errors start.
    if (replays) await sleep(7000);
    const sampler = sampleRss(errata.pid);
    const cpu0 = cpuOf(errata.pid);
    const t0 = performance.now();
    const sent = await loader.run(url, bodyFile, { connections: CONNECTIONS, amount: EVENTS });
    const tSent = performance.now();
    await waitStored(db, warm.ok + sent.ok);
    const tDone = performance.now();
    const cpuSecs = cpuDelta(cpu0, cpuOf(errata.pid)).reduce((a, c) => a + c.secs, 0);
    const rss = sampler.stop();
    const replayStats = await replays?.stop();
    if (sent.failed > 0) console.log(`!! ${sent.failed} error requests failed`);
    return {
      ingest: sent.ok / ((tSent - t0) / 1000),
      digested: sent.ok / ((tDone - t0) / 1000),
      rss,
      cpuPerEvent: (cpuSecs * 1e6) / sent.ok,
      replays: replayStats,
    };
  } finally {
    await db.close();
    await errata.stop();
    fs.rmSync(errata.dataDir, { recursive: true, force: true });
  }
}

async function errorsWithAndWithout(): Promise<void> {
  console.log(
    `\n1. Errors with and without replays: ${EVENTS} error events (5 KB) over ${CONNECTIONS} connections; replays: ${SESSIONS} sessions × one ~${Math.round(SEGMENT / 1024)} KB segment every 5 s.`,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-replay-"));
  const body = (loadTemplates().find((t) => t.name === "5kb") ?? loadTemplates()[0])?.writeWithoutIds(dir) as string;
  const base: ErrorRun[] = [];
  const withR: ErrorRun[] = [];
  try {
    for (let r = 1; r <= ROUNDS; r++) {
      console.log(`round ${r}: ${loadNote()}`);
      const a = await errorsRun(false, body);
      base.push(a);
      console.log(
        `  without replays: ingest ${a.ingest.toFixed(0)}/s, digested ${a.digested.toFixed(0)}/s, RSS max ${fmtBytes(a.rss)}, CPU ${a.cpuPerEvent.toFixed(0)} µs/error`,
      );
      const b = await errorsRun(true, body);
      withR.push(b);
      console.log(
        `  with replays:    ingest ${b.ingest.toFixed(0)}/s, digested ${b.digested.toFixed(0)}/s, RSS max ${fmtBytes(b.rss)}, CPU ${b.cpuPerEvent.toFixed(0)} µs/error (replays' work included); replay load ${JSON.stringify(b.replays)}`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const m = (runs: ErrorRun[], f: (x: ErrorRun) => number) => median(runs.map(f));
  const ingestRatio = m(withR, (x) => x.ingest) / m(base, (x) => x.ingest);
  const digestRatio = m(withR, (x) => x.digested) / m(base, (x) => x.digested);
  const rssDelta = m(withR, (x) => x.rss) - m(base, (x) => x.rss);
  console.log(
    `medians: ingest ${m(base, (x) => x.ingest).toFixed(0)} → ${m(withR, (x) => x.ingest).toFixed(0)}/s (${(ingestRatio * 100).toFixed(1)} %), digested ${m(base, (x) => x.digested).toFixed(0)} → ${m(withR, (x) => x.digested).toFixed(0)}/s (${(digestRatio * 100).toFixed(1)} %), RSS max ${fmtBytes(m(base, (x) => x.rss))} → ${fmtBytes(m(withR, (x) => x.rss))} (${rssDelta >= 0 ? "+" : ""}${(rssDelta / 1024 / 1024).toFixed(0)} MB)`,
  );
  const cpuRatio = m(withR, (x) => x.cpuPerEvent) / m(base, (x) => x.cpuPerEvent);
  console.log(
    `Errata CPU per error event ${m(base, (x) => x.cpuPerEvent).toFixed(0)} → ${m(withR, (x) => x.cpuPerEvent).toFixed(0)} µs (${((cpuRatio - 1) * 100).toFixed(1)} % more, the replays' share: on a CPU-bound machine of its own, what the throughput gives up)`,
  );
  console.log(
    `targets: ingest ≥ 90 % ${ingestRatio >= 0.9 ? "ok" : "MISSED"}; digest ≥ 90 % ${digestRatio >= 0.9 ? "ok" : "MISSED"}; RSS within 50 MB ${rssDelta <= 50 * 1024 * 1024 ? "ok" : "MISSED"}`,
  );
}

/** ms from sending the request to the first byte of the body. */
function firstByte(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`recording-segments answered ${res.statusCode}`));
      res.once("data", () => {
        resolve(performance.now() - t0);
        res.destroy();
      });
    });
    req.on("error", reject);
  });
}

async function playerFirstFrame(): Promise<void> {
  console.log(
    `\n2. A 10-minute replay (120 segments of ~${Math.round(SEGMENT / 1024)} KB as sent): time to the first segment and to the player's first frame.`,
  );
  const errata = await startErrata();
  const db = openErrataDb(errata);
  const env = errata.env as NodeJS.ProcessEnv;
  try {
    const token = (
      await execFileP(
        process.execPath,
        [CLI, "token", "create", "--email", "bench@example.com", "--scopes", "event:read,org:read,project:read"],
        { cwd: ROOT, env },
      )
    ).stdout.trim();
    const replayId = "b".repeat(32);
    const start = Date.now() - 600_000;
    const first = segmentBody(0, start, SEGMENT, 1);
    const rest = Array.from({ length: 4 }, (_, i) => segmentBody(1, start, SEGMENT, i + 2));
    const url = envelopeUrl(errata);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const post = (body: Buffer) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(url, { method: "POST", agent, headers: { "content-length": String(body.length) } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end(body);
      });
    for (let n = 0; n < 120; n++) {
      const src = n === 0 ? first : (rest[n % rest.length] as (typeof rest)[number]);
      const recording = Buffer.concat([Buffer.from(`{"segment_id":${n}}\n`), src.recording.subarray(src.recording.indexOf(10) + 1)]);
      const status = await post(segmentEnvelope(replayId, n, start, start + (n + 1) * 5000, recording));
      if (status !== 200) throw new Error(`segment ${n} answered ${status}`);
    }
    agent.destroy();
    const deadline = Date.now() + 5 * 60_000;
    while (Number((await getReplay(db, replayId))?.count_segments ?? 0) < 120) {
      if (Date.now() > deadline) throw new Error("the 10-minute replay was not stored in 5 minutes");
      await sleep(200);
    }
    const stored = await getReplay(db, replayId);
    console.log(`stored: ${stored?.count_segments} segments, ${fmtBytes(Number(stored?.size_bytes))} compressed; ${loadNote()}`);
    // What the player asks first: segment 0 as stored.
    const segmentsUrl = `${errata.url}/api/0/projects/bench/bench/replays/${replayId}/recording-segments/0/?download=true&encoding=zlib`;
    await firstByte(segmentsUrl, token);
    const ttfb: number[] = [];
    for (let i = 0; i < 30; i++) ttfb.push(await firstByte(segmentsUrl, token));
    console.log(
      `server time to the first segment: p50 ${median(ttfb).toFixed(1)} ms, p95 ${pct(ttfb, 95).toFixed(1)} ms (≤ 100) ${pct(ttfb, 95) <= 100 ? "ok" : "MISSED"}`,
    );

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`${errata.url}/login`);
      await page.getByLabel("Email").fill("bench@example.com");
      await page.getByLabel("Password").fill("bench-password-123");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((u) => !u.pathname.startsWith("/login"));
      const frames: number[] = [];
      for (let i = 0; i < 6; i++) {
        const t0 = performance.now();
        await page.goto(`${errata.url}/bench/replays/${replayId}`, { waitUntil: "commit" });
        await page.waitForFunction(
          () => document.querySelector("[data-testid=replay-player]")?.getAttribute("data-status") === "paused",
          undefined,
          {
            timeout: 30_000,
            polling: 10,
          },
        );
        const ms = performance.now() - t0;
        // The first load warms the server and the browser cache; the rest are what a user sees.
        if (i > 0) frames.push(ms);
        if (i === 1 && process.env.BENCH_TRACE) {
          const t = await page.evaluate(() => {
            const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
            const res = (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).map(
              (r) => `${Math.round(r.startTime)}→${Math.round(r.responseEnd)} ${r.name.replace(location.origin, "").slice(0, 90)}`,
            );
            return {
              ttfb: Math.round(nav.responseStart),
              dcl: Math.round(nav.domContentLoadedEventEnd),
              load: Math.round(nav.loadEventEnd),
              now: Math.round(performance.now()),
              preload: document.querySelector('link[rel="preload"][as="fetch"]')?.outerHTML ?? "none",
              res,
              marks: performance.getEntriesByType("mark").map((m) => `${m.name} ${Math.round(m.startTime)}`),
            };
          });
          console.log(JSON.stringify(t, null, 1));
        }
      }
      console.log(
        `player's first frame (navigation → drawn): p50 ${median(frames).toFixed(0)} ms, max ${Math.max(...frames).toFixed(0)} ms (≤ 1000) ${Math.max(...frames) <= 1000 ? "ok" : "MISSED"}`,
      );
    } finally {
      await browser.close();
    }
  } finally {
    await db.close();
    await errata.stop();
    fs.rmSync(errata.dataDir, { recursive: true, force: true });
  }
}

const ensureBuildModule = "../scripts/ensure-build.mjs";
((await import(ensureBuildModule)) as { ensureBuild(): void }).ensureBuild();
console.log(`bench:replay — ${loadNote()}`);
if (!values["skip-errors"]) await errorsWithAndWithout();
if (!values["skip-player"]) await playerFirstFrame();
