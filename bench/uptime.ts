/**
 * `npm run bench:uptime` — do uptime checks disturb ingest? Errata on SQLite with N uptime monitors
 * (default 500, every 60 s) checking a local HTTP server, and ingest loaded by the load generator
 * in its own process (64 connections, the 5 KB @sentry/node envelope without event ids). Rounds
 * alternate monitors paused / running (resumed with their next checks spread over the interval,
 * as in steady state); each round waits for the digest to drain before the next. Prints ingest
 * requests/s with and without, the checks done meanwhile, and the ratio (target: ≤ 5 % lower).
 *
 * Options (node:util parseArgs): --monitors N (500), --interval S (60), --rounds N (3),
 *   --duration S (10, per run), --connections N (64), --loader autocannon|wrk.
 * Not a test: figures depend on the machine, and the ratio means something only within one run.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDb } from "../src/storage/db";
import { writeTx } from "../src/storage/dialect";
import { countEvents } from "../src/storage/events/events";
import { insertUptimeMonitor } from "../src/storage/monitors/uptime";
import { loadTemplates, sleep, startErrata } from "./helpers";
import { makeLoader } from "./load";

const { values } = parseArgs({
  options: {
    monitors: { type: "string", default: "500" },
    interval: { type: "string", default: "60" },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "64" },
    loader: { type: "string", default: "autocannon" },
  },
});
const MONITORS = Number(values.monitors);
const INTERVAL_S = Number(values.interval);
const ROUNDS = Number(values.rounds);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : ((s[(s.length - 1) >> 1] ?? 0) + (s[s.length >> 1] ?? 0)) / 2;
}

async function main(): Promise<void> {
  const ensureBuildModule = "../scripts/ensure-build.mjs";
  ((await import(ensureBuildModule)) as { ensureBuild(): void }).ensureBuild();
  const loader = makeLoader(String(values.loader));
  const tpl = loadTemplates().find((t) => t.name === "5kb");
  if (!tpl) throw new Error("no 5 KB template in the corpus");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-uptime-"));
  const body = tpl.writeWithoutIds(dir);
  // The checked site: answers every check at once with a small page.
  let hits = 0;
  const site = http.createServer((_req, res) => {
    hits += 1;
    res.end("<html>ok</html>");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/health`;
  const errata = await startErrata({ env: { UPTIME_ALLOW_PRIVATE: "true" } });
  const db = openDb({ kind: "sqlite", file: errata.dbFile, synchronous: "NORMAL" });
  const monitors = db.kysely.updateTable("uptime_monitors");
  console.log(
    `Uptime vs ingest: ${MONITORS} monitors every ${INTERVAL_S} s against ${siteUrl}; ingest at ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds (${loader.describe}); ${os.cpus().length} cores`,
  );
  try {
    const now = Date.now();
    await writeTx(db, async (tx) => {
      for (let i = 0; i < MONITORS; i++) {
        const config = {
          url: siteUrl,
          method: "GET" as const,
          intervalS: INTERVAL_S,
          timeoutMs: 5000,
          statusMin: 200,
          statusMax: 299,
          keyword: null,
          headers: {},
          failureThreshold: 3,
          recoveryThreshold: 1,
        };
        await insertUptimeMonitor(tx, { projectId: errata.projectId, name: `site ${i}`, config }, now);
      }
    });
    const setRunning = async (on: boolean) => {
      await monitors.set({ paused: on ? 0 : 1 }).execute();
      if (!on) return;
      // Resume as in steady state: each monitor's next check somewhere in the coming interval.
      const t = Date.now();
      await writeTx(db, async (tx) => {
        for (let i = 1; i <= MONITORS; i++) {
          await tx
            .updateTable("uptime_monitors")
            .set({ next_check_at: t + Math.floor((i * INTERVAL_S * 1000) / MONITORS) })
            .where("id", "=", i)
            .execute();
        }
      });
    };
    const url = `${errata.url}/api/${errata.projectId}/envelope/?sentry_version=7&sentry_key=${errata.publicKey}`;
    let accepted = (await loader.run(url, body, { connections: 4, duration: 2 })).ok;
    const drain = async () => {
      while ((await countEvents(db)) < accepted) await sleep(100);
    };
    await drain();
    const off: number[] = [];
    const on: number[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      for (const running of [false, true]) {
        await setRunning(running);
        const before = hits;
        const res = await loader.run(url, body, { connections: CONNECTIONS, duration: DURATION });
        accepted += res.ok;
        (running ? on : off).push(res.rps);
        console.log(
          `round ${r} monitors ${running ? "running" : "paused "}: ${res.rps.toFixed(0)} req/s (p99 ${res.p99} ms, ${res.failed} failed), ${hits - before} checks meanwhile`,
        );
        await drain();
      }
    }
    const a = median(off);
    const b = median(on);
    console.log(
      `\nmedian ingest: paused ${a.toFixed(0)} req/s, running ${b.toFixed(0)} req/s → ${((100 * (a - b)) / a).toFixed(1)} % lower (target ≤ 5 %)`,
    );
  } finally {
    await db.close();
    await errata.stop();
    site.close();
    fs.rmSync(errata.dataDir, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
