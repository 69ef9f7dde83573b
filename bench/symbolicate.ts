/**
 * `npm run bench:symbolicate` — source-map symbolication cost (issue 5, "Performance").
 *
 *   1. A generated app bundled and minified by esbuild into one file with a ~5 MB source map,
 *      stored as an artifact bundle in a temp SQLite database.
 *   2. A 200-frame event at mapped positions of that file: symbolicated by Errata's digest-time
 *      symbolicator on first use (read + gunzip + parse + lookups + context lines) and cached
 *      (the map already parsed), against plain `@jridgewell/trace-mapping` (`new TraceMap` +
 *      200 × `originalPositionFor`) in the same run — printed with the ratios.
 *   3. Digest throughput (parse → normalise → symbolicate → scrub → group → store) of the real
 *      captured @sentry/browser event with 10 and 20 mapped frames, with the symbolicator (warm
 *      cache) and without: the cost symbolication adds to ingest end to end (the digest worker
 *      is the pipeline's bottleneck; ingest itself never symbolicates).
 *
 * Options: --map-mb N (target map size, default 5), --events N (digest part, default 2000).
 * Not a test: figures depend on the machine.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { eachMapping, originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import * as esbuild from "esbuild";
import pino from "pino";
import { normalizeEvent } from "../src/core/normalize-event";
import { parseSourceMap } from "../src/core/symbolicate/parsed-source-map";
import { applySourceMaps } from "../src/core/symbolicate/symbolicate-frames";
import { digestBatch, sha256Hex } from "../src/pipeline/digest-batch";
import { createSymbolicator } from "../src/pipeline/symbolicate-event";
import { openDb } from "../src/storage/db";
import { writeTx } from "../src/storage/dialect";
import { migrateToLatest } from "../src/storage/migrate";
import { insertProject } from "../src/storage/orgs/projects";
import { claimBatch, enqueueMany } from "../src/storage/queue/queue";
import { insertBundle } from "../src/storage/releases/artifacts";
import { CORPUS_DIR } from "../test/pipeline/corpus";

const { values: flags } = parseArgs({
  options: { "map-mb": { type: "string", default: "5" }, events: { type: "string", default: "2000" } },
});
const TARGET_BYTES = Number(flags["map-mb"]) * 1024 * 1024;
const DIGEST_EVENTS = Number(flags.events);
const log = pino({ level: "silent" });
const FILE = "https://bench.example.com/static/app.min.js";

function moduleSource(i: number): string {
  const lines = [`import { shared${i % 7} } from "./shared${i % 7}.js";`, `export function handler${i}(input) {`];
  for (let j = 0; j < 12; j++) {
    lines.push(
      `  const value${j} = computeStep${i}_${j}(input, ${j});`,
      `  if (value${j} > ${1000 + j}) {`,
      `    return shared${i % 7}(value${j}, "module ${i} step ${j}");`,
      "  }",
    );
  }
  lines.push("  return input;", "}");
  for (let j = 0; j < 12; j++)
    lines.push(`function computeStep${i}_${j}(input, k) {`, `  return (input.length ?? 0) * ${j + 1} + k + ${i};`, "}");
  return `${lines.join("\n")}\n`;
}

/** esbuild output with a map of at least TARGET_BYTES. */
async function buildApp(): Promise<{ js: string; map: string; modules: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-sm-"));
  let modules = 400;
  for (;;) {
    for (let s = 0; s < 7; s++)
      fs.writeFileSync(
        path.join(dir, `shared${s}.js`),
        `export function shared${s}(v, label) { if (v < 0) throw new Error(label); return v; }\n`,
      );
    for (let i = 0; i < modules; i++) fs.writeFileSync(path.join(dir, `m${i}.js`), moduleSource(i));
    const entry = Array.from({ length: modules }, (_, i) => `import { handler${i} } from "./m${i}.js";`).join("\n");
    fs.writeFileSync(
      path.join(dir, "main.js"),
      `${entry}\nwindow.handlers = [${Array.from({ length: modules }, (_, i) => `handler${i}`).join(",")}];\n`,
    );
    const out = await esbuild.build({
      entryPoints: [path.join(dir, "main.js")],
      bundle: true,
      minify: true,
      sourcemap: "external",
      write: false,
      outfile: path.join(dir, "out/app.min.js"),
      logLevel: "silent",
    });
    const js = out.outputFiles.find((f) => f.path.endsWith(".js"))?.text ?? "";
    const map = out.outputFiles.find((f) => f.path.endsWith(".map"))?.text ?? "";
    if (map.length >= TARGET_BYTES) {
      fs.rmSync(dir, { recursive: true, force: true });
      return { js, map, modules };
    }
    modules = Math.ceil((modules * TARGET_BYTES) / map.length) + 10;
  }
}

/** 200 generated positions (1-based line/column) spread over the file's named mappings. */
function framePositions(map: TraceMap, count: number): Array<{ lineno: number; colno: number }> {
  const all: Array<{ lineno: number; colno: number }> = [];
  eachMapping(map, (m) => {
    if (m.source !== null && m.name !== null) all.push({ lineno: m.generatedLine, colno: m.generatedColumn + 1 });
  });
  const step = Math.max(1, Math.floor(all.length / count));
  return Array.from({ length: count }, (_, i) => all[(i * step) % all.length] as { lineno: number; colno: number });
}

function event(positions: Array<{ lineno: number; colno: number }>, debugId: string): Record<string, unknown> {
  return {
    event_id: randomUUID().replace(/-/g, ""),
    platform: "javascript",
    timestamp: Date.now() / 1000,
    exception: {
      values: [
        {
          type: "Error",
          value: "bench",
          stacktrace: { frames: positions.map((p, i) => ({ filename: FILE, abs_path: FILE, function: `f${i}`, in_app: true, ...p })) },
        },
      ],
    },
    debug_meta: { images: [{ type: "sourcemap", code_file: FILE, debug_id: debugId }] },
  };
}

/** The @sentry/browser 11.12 error event (with debug_meta) recorded in the corpus. */
function capturedBrowserEvent(): Record<string, unknown> {
  const text = fs.readFileSync(path.join(CORPUS_DIR, "sdk-captures/browser-sdk-envelope.txt"), "utf8");
  const line = text.split("\n").find((l) => l.startsWith("{") && l.includes('"debug_meta"'));
  if (!line) throw new Error("captured browser event not found");
  return JSON.parse(line) as Record<string, unknown>;
}

const ms = (t: number) => `${t.toFixed(2)} ms`;
function time<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}
async function timeAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<void> {
  console.log(`Building a generated app with esbuild (target map ${(TARGET_BYTES / 1048576).toFixed(1)} MB)…`);
  const { js, map, modules } = await buildApp();
  const debugId = randomUUID();
  const mapText = map.replace(/}\s*$/, `,"debugId":"${debugId}"}`);
  console.log(`  ${modules} modules → app.min.js ${(js.length / 1048576).toFixed(2)} MB, map ${(mapText.length / 1048576).toFixed(2)} MB`);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-db-"));
  const db = openDb({ kind: "sqlite", file: path.join(dataDir, "errata.db"), synchronous: "NORMAL" });
  await migrateToLatest(db);
  const { orgId, projectId } = await writeTx(db, async (tx) => {
    const org = await tx
      .insertInto("organizations")
      .values({ slug: "bench", name: "Bench", created_at: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    const p = await insertProject(tx, { orgId: Number(org.id), slug: "web", name: "web", platform: "javascript", now: 1 });
    return { orgId: Number(org.id), projectId: p.id };
  });
  const mapBytes = Buffer.from(mapText);
  await writeTx(db, (tx) =>
    insertBundle(tx, {
      orgId,
      checksum: "0".repeat(40),
      bundleDebugId: null,
      release: "",
      dist: "",
      size: mapBytes.length,
      projectIds: [projectId],
      files: [
        {
          url: "~/static/app.min.js.map",
          type: "source_map",
          debugId,
          sourcemap: null,
          size: mapBytes.length,
          sha1: "0".repeat(40),
          gz: gzipSync(mapBytes),
        },
      ],
      now: 1,
    }),
  );

  const positions = framePositions(new TraceMap(mapText), 200);
  const raw = event(positions, debugId);
  const normalized = () => normalizeEvent(structuredClone(raw), { receivedAt: Date.now(), clientIp: null });

  // --- Errata: first use, then cached.
  const symbolicator = createSymbolicator(db, log, { cacheBytes: 256 << 20 });
  const firstEvent = normalized();
  const first = await timeAsync(() => symbolicator.symbolicate(firstEvent, projectId));
  if (first.value.mapped !== 200) throw new Error(`expected 200 mapped frames, got ${first.value.mapped}`);
  const cachedRuns: number[] = [];
  for (let i = 0; i < 300; i++) {
    const e = normalized();
    cachedRuns.push((await timeAsync(() => symbolicator.symbolicate(e, projectId))).ms);
  }
  const cached = median(cachedRuns.slice(50));

  // --- Core only (no database): parse + apply.
  const coreParse = time(() => parseSourceMap(mapText));
  const coreFirst = time(() => applySourceMaps(normalized(), () => ({ kind: "map", map: coreParse.value, ref: debugId, debugId })));
  const coreRuns: number[] = [];
  for (let i = 0; i < 300; i++) {
    const e = normalized();
    coreRuns.push(time(() => applySourceMaps(e, () => ({ kind: "map", map: coreParse.value, ref: debugId, debugId }))).ms);
  }

  // --- Plain trace-mapping, same run: construct + 200 lookups (decoding happens on the first).
  const plainFirst = time(() => {
    const tm = new TraceMap(mapText);
    for (const p of positions) originalPositionFor(tm, { line: p.lineno, column: p.colno - 1 });
    return tm;
  });
  const plainRuns: number[] = [];
  for (let i = 0; i < 300; i++) {
    plainRuns.push(
      time(() => {
        for (const p of positions) originalPositionFor(plainFirst.value, { line: p.lineno, column: p.colno - 1 });
      }).ms,
    );
  }
  const plainCached = median(plainRuns.slice(50));

  console.log("\n200-frame event against the map");
  console.log(`  Errata first use (read + gunzip + parse + map + context): ${ms(first.ms)}`);
  console.log(`  Errata cached:                                            ${ms(cached)}  (median of 250)`);
  console.log(`  core only: parse ${ms(coreParse.ms)}, first apply ${ms(coreFirst.ms)}, cached apply ${ms(median(coreRuns.slice(50)))}`);
  console.log(`  trace-mapping first (new TraceMap + 200 lookups):         ${ms(plainFirst.ms)}`);
  console.log(`  trace-mapping cached (200 originalPositionFor):           ${ms(plainCached)}`);
  console.log(
    `  ratio Errata/trace-mapping: first ${(first.ms / plainFirst.ms).toFixed(2)}x, cached ${(cached / plainCached).toFixed(2)}x`,
  );
  console.log(`  cache: ${JSON.stringify(symbolicator.stats())}`);

  // --- Digest throughput with and without symbolication (warm cache). The event is the real
  // @sentry/browser 11.12 event captured in the corpus (debug_meta included), its frames replaced
  // by mapped ones: 10 (Chrome's default Error.stackTraceLimit) and, harsher, 20.
  const template = capturedBrowserEvent();
  const limits = {
    maxCompressedBody: 20 << 20,
    maxEnvelopeSize: 100 << 20,
    maxEventSize: 1 << 20,
    maxAttachmentSize: 20 << 20,
    maxHeaderLine: 8192,
    bodyTimeoutMs: 30_000,
  };
  function minifiedEvent(frames: number): Record<string, unknown> {
    const e = structuredClone(template) as {
      event_id: string;
      exception: { values: Array<{ stacktrace: { frames: unknown[] } }> };
      debug_meta: unknown;
    };
    e.event_id = randomUUID().replace(/-/g, "");
    (e.exception.values[0] as { stacktrace: { frames: unknown[] } }).stacktrace.frames = positions
      .slice(0, frames)
      .map((p, i) => ({ filename: FILE, function: `f${i}`, in_app: true, ...p }));
    e.debug_meta = { images: [{ type: "sourcemap", code_file: FILE, debug_id: debugId }] };
    return e;
  }
  /** The same frames as an SDK that sends readable frames with context itself (as @sentry/node does). */
  async function readableEvent(frames: number): Promise<Record<string, unknown>> {
    const e = normalizeEvent(minifiedEvent(frames), { receivedAt: Date.now(), clientIp: null });
    await symbolicator.symbolicate(e, projectId);
    const out = structuredClone(e) as Record<string, unknown> & { exception: { values: Array<Record<string, unknown>> } };
    for (const v of out.exception.values) delete v.raw_stacktrace;
    delete out.debug_meta;
    delete out.errata;
    return out;
  }
  type Variant = "minified" | "symbolicated" | "readable";
  async function digestRun(frames: number, variant: Variant): Promise<number> {
    const readable = variant === "readable" ? await readableEvent(frames) : undefined;
    const withMaps = variant === "symbolicated";
    const rows = Array.from({ length: DIGEST_EVENTS }, () => {
      const e = readable ? { ...structuredClone(readable), event_id: randomUUID().replace(/-/g, "") } : minifiedEvent(frames);
      return { projectId, keyId: 1, receivedAt: Date.now(), clientIp: null, kind: "store" as const, body: Buffer.from(JSON.stringify(e)) };
    });
    for (let i = 0; i < rows.length; i += 500) await enqueueMany(db, rows.slice(i, i + 500));
    // CPU time of this process, not wall time: other processes on the machine do not skew it.
    const c0 = process.cpuUsage();
    for (;;) {
      const items = await claimBatch(db, Date.now(), 200, 60_000);
      if (items.length === 0) break;
      await digestBatch(db, items, {
        now: Date.now(),
        limits,
        log,
        hash: sha256Hex,
        ...(withMaps ? { symbolicate: (e, p) => symbolicator.symbolicate(e, p) } : {}),
      });
    }
    const c = process.cpuUsage(c0);
    return DIGEST_EVENTS / ((c.user + c.system) / 1e6);
  }
  console.log(
    `\nDigest throughput (parse → normalise → symbolicate → scrub → group → store), SQLite, batches of 200, ${DIGEST_EVENTS} events per run;`,
  );
  console.log("events per CPU-second of the digesting process (robust to other load on the machine), best of 3 alternating runs:");
  await digestRun(10, "symbolicated"); // warm-up (JIT, SQLite pages)
  for (const frames of [10, 20]) {
    const best: Record<Variant, number> = { minified: 0, symbolicated: 0, readable: 0 };
    for (let round = 0; round < 3; round++) {
      for (const v of ["minified", "symbolicated", "readable"] as const) best[v] = Math.max(best[v], await digestRun(frames, v));
    }
    const lower = (a: number, b: number) => `${((1 - a / b) * 100).toFixed(1)} % lower`;
    console.log(
      `  ${frames} frames: minified, no maps ${best.minified.toFixed(0)} events/s; with cached maps ${best.symbolicated.toFixed(0)} events/s (${lower(best.symbolicated, best.minified)})`,
    );
    console.log(
      `    the same readable frames + context sent by the SDK, no maps: ${best.readable.toFixed(0)} events/s → symbolication itself: ${lower(best.symbolicated, best.readable)}`,
    );
  }

  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

await main();
