/**
 * `npm run bench:digest` — the digest alone, in this process, on a fresh SQLite file: N recorded
 * envelopes (distinct event ids) are queued through src/storage, then claimed and digested with the
 * production code (claimBatch + digestBatch) in batches, as the worker does. Prints CPU µs per
 * event (process.cpuUsage, steadier than wall time on a loaded machine), the share spent inside
 * the write transaction, wall events/s, and the raw better-sqlite3 insert ceiling of the same
 * bodies measured in the same run, alternated per round.
 *
 * Options (node:util parseArgs): --events N (5000), --batch N (100), --rounds N (3),
 *   --only 5kb|50kb, --issues N (distinct issues the events spread over; 1 = one stack trace),
 *   --postgres (a fresh PostgreSQL database per round instead of a SQLite file; the admin
 *   connection is --url, default the test server's). On PostgreSQL "written" is this process's
 *   writes only (none): the server's are not counted.
 * --grouping vN: the project's grouping version (default: the one new projects get), to compare
 *   versions in one build.
 * --alloc-prof: V8's sampling heap profiler over each round's digest (claims and digestBatch only),
 *   counting objects already collected too: bytes allocated per event and the functions that
 *   allocate most (the young generation's scavenges, and V8's helper threads, scale with it).
 * Profile: `node --cpu-prof --cpu-prof-dir=.tmp/profiles --import tsx bench/digest.ts`, then
 *   `npx tsx bench/profile-summary.ts .tmp/profiles/<file>.cpuprofile`.
 */
import fs from "node:fs";
import inspector from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { digestBatch, sha256Hex } from "../src/pipeline/digest-batch";
import { type Db, openDb } from "../src/storage/db";
import { writeTx } from "../src/storage/dialect";
import { countEvents } from "../src/storage/events/events";
import { migrateToLatest } from "../src/storage/migrate";
import { insertProject } from "../src/storage/orgs/projects";
import { claimBatch, enqueueMany, type QueueInsert } from "../src/storage/queue/queue";
import Database from "../src/storage/sqlite-driver";
import { createPostgresDatabase, type EnvelopeTemplate, loadTemplates } from "./helpers";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "5000" },
    batch: { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    only: { type: "string" },
    issues: { type: "string", default: "1" },
    postgres: { type: "boolean", default: false },
    "alloc-prof": { type: "boolean", default: false },
    grouping: { type: "string" },
    url: { type: "string", default: process.env.ERRATA_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
  },
});
const N = Number(values.events);
const BATCH = Number(values.batch);
const ROUNDS = Number(values.rounds);
const ISSUES = Math.max(1, Number(values.issues));
const log = pino({ level: "silent" });
const LIMITS = { maxHeaderLine: 8192, maxEventSize: 1 << 20, maxAttachmentSize: 20 << 20 };

/** Bytes this process passed to write(2) so far (Linux /proc/self/io `wchar`): SQLite's I/O volume. */
function wchar(): number {
  try {
    return Number(/wchar: (\d+)/.exec(fs.readFileSync("/proc/self/io", "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function fresh(): Promise<{ db: Db; projectId: number; drop: () => Promise<void> }> {
  let db: Db;
  let drop: () => Promise<void>;
  if (values.postgres) {
    const database = await createPostgresDatabase(String(values.url));
    db = openDb({ kind: "postgres", url: database.url });
    drop = async () => {
      await db.close();
      await database.drop();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-digest-"));
    db = openDb({ kind: "sqlite", file: path.join(dir, "errata.db"), synchronous: "NORMAL" });
    drop = async () => {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  await migrateToLatest(db);
  const projectId = await writeTx(db, async (tx) => {
    const org = await tx
      .insertInto("organizations")
      .values({ slug: "bench", name: "Bench", created_at: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    const id = (await insertProject(tx, { orgId: Number(org.id), slug: "bench", name: "Bench", platform: "node", now: 1 })).id;
    if (values.grouping) await tx.updateTable("projects").set({ grouping_version: values.grouping }).where("id", "=", id).execute();
    return id;
  });
  return { db, projectId, drop };
}

/** The template's body with a fresh id; with --issues > 1, a distinct exception value per group. */
function body(tpl: EnvelopeTemplate, i: number): Buffer {
  const b = tpl.next().body;
  if (ISSUES === 1) return b;
  // The exception type decides the group; rewrite it in place, same length.
  const text = b.toString("utf8");
  const tag = String(i % ISSUES).padStart(4, "0");
  return Buffer.from(text.replace(/"type":"(TypeError|Error)"/, (_m, t: string) => `"type":"${t}${tag}"`));
}

async function digestRound(tpl: EnvelopeTemplate): Promise<{ cpuUs: number; txUs: number; perSec: number; kbWritten: number }> {
  const { db, projectId, drop } = await fresh();
  try {
    const now = Date.now();
    const rows: QueueInsert[] = [];
    for (let i = 0; i < N; i++)
      rows.push({ projectId, keyId: 1, receivedAt: now, clientIp: "198.51.100.9", kind: "envelope", body: body(tpl, i) });
    for (let i = 0; i < rows.length; i += 500) await enqueueMany(db, rows.slice(i, i + 500));
    let txMs = 0;
    const alloc = values["alloc-prof"] ? await startAllocationSampling() : undefined;
    const w0 = wchar();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (;;) {
      const items = await claimBatch(db, now, BATCH, 60_000);
      if (items.length === 0) break;
      await digestBatch(db, items, {
        now,
        limits: LIMITS,
        log,
        hash: sha256Hex,
        onWriteTx: (ms) => {
          txMs += ms;
        },
      });
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    if (alloc) printAllocations(await alloc.stop(), N);
    const kbWritten = (wchar() - w0) / 1024 / N;
    const stored = await countEvents(db);
    if (stored !== N) throw new Error(`stored ${stored} of ${N}`);
    return { cpuUs: (cpu.user + cpu.system) / N, txUs: (txMs * 1000) / N, perSec: N / (wall / 1000), kbWritten };
  } finally {
    await drop();
  }
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** Samples allocations, collected objects included (what `--heap-prof` leaves out). */
async function startAllocationSampling(): Promise<{ stop(): Promise<SamplingNode> }> {
  const session = new inspector.Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stop() {
      const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: SamplingNode } };
      session.disconnect();
      return profile.head;
    },
  };
}

function printAllocations(head: SamplingNode, events: number): void {
  const byFn = new Map<string, number>();
  let total = 0;
  const walk = (n: SamplingNode) => {
    const f = n.callFrame;
    const where = f.url ? `${f.url.replace(/^.*\/(src|node_modules)\//, "$1/")}:${f.lineNumber + 1}` : "(native)";
    const key = `${f.functionName || "(anonymous)"} ${where}`;
    byFn.set(key, (byFn.get(key) ?? 0) + n.selfSize);
    total += n.selfSize;
    for (const c of n.children) walk(c);
  };
  walk(head);
  console.log(`  allocated ${(total / events / 1024).toFixed(0)} KB per event; most by (self, KB per event):`);
  for (const [fn, bytes] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 20))
    console.log(`    ${(bytes / events / 1024).toFixed(1).padStart(6)}  ${fn}`);
}

function rawCeiling(tpl: EnvelopeTemplate): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-raw-"));
  const db = new Database(path.join(dir, "raw.db"));
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec("CREATE TABLE events (id INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL)");
    const stmt = db.prepare("INSERT INTO events (event_id, payload) VALUES (?, ?)");
    const insert = db.transaction((rows: Array<{ id: string; body: Buffer }>) => {
      for (const r of rows) stmt.run(r.id, r.body);
    });
    const t0 = performance.now();
    for (let done = 0; done < N; done += 500) insert(Array.from({ length: Math.min(500, N - done) }, () => tpl.next()));
    return N / ((performance.now() - t0) / 1000);
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const [l1] = os.loadavg();
console.log(
  `Digest in-process: ${N} events per round, batches of ${BATCH}, ${ISSUES} issue(s), ${ROUNDS} rounds; load average ${l1?.toFixed(1)} on ${os.cpus().length} cores`,
);
for (const tpl of loadTemplates().filter((t) => !values.only || t.name === values.only)) {
  const rs: Array<{ cpuUs: number; txUs: number; perSec: number; kbWritten: number; raw: number }> = [];
  for (let r = 0; r < ROUNDS; r++) {
    const raw = rawCeiling(tpl);
    const d = await digestRound(tpl);
    rs.push({ ...d, raw });
    console.log(
      `  ${tpl.name} round ${r + 1}: ${d.cpuUs.toFixed(0)} µs CPU/event (${d.txUs.toFixed(0)} µs in the write tx), ${d.kbWritten.toFixed(1)} KB written/event, ${d.perSec.toFixed(0)} events/s; raw insert ${raw.toFixed(0)}/s`,
    );
  }
  const m = (f: (x: (typeof rs)[number]) => number) => median(rs.map(f));
  console.log(
    `${tpl.name} median: ${m((x) => x.cpuUs).toFixed(0)} µs CPU/event, ${m((x) => x.txUs).toFixed(0)} µs in tx, ${m((x) => x.kbWritten).toFixed(1)} KB written/event, ${m((x) => x.perSec).toFixed(0)} events/s, raw ceiling ${m((x) => x.raw).toFixed(0)}/s (${m((x) => (100 * x.perSec) / x.raw).toFixed(1)} %)`,
  );
}
