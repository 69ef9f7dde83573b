/**
 * Issue 43: a large artifact bundle is streamed, never held whole. A ~60 MiB bundle (incompressible
 * filler plus a real minified file and its map) goes up in 8 MiB chunks over the chunk-upload
 * protocol and is assembled, against the built server on both databases. The server's peak RSS
 * (VmHWM, reset through /proc/<pid>/clear_refs before each phase) is measured for the upload and
 * for the assembly; the event then symbolicates with the bundle's map and a filler file reads
 * back byte-identical from storage. Slow: ~45-60 s per database on a loaded 2-core machine.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db";
import { openDb } from "../../src/storage/db";
import { readArtifactFile } from "../../src/storage/releases/artifacts";
import { startServer, type TestServer } from "../helpers/server";
import { dialects } from "../helpers/test-db";
import { createTenant, injectedApp, RawUploader, sendEvent, sha1, storedEvent, type Tenant, topFrame, vectorEvent } from "./helpers";

const MiB = 1024 * 1024;
const FILLERS = 40;
const FILLER_SIZE = 2 * MiB;
const CHUNK = 8 * MiB;
// Memory as deployed, not under Node's defaults: the flags bin/errata.mjs (so `npm start` and the
// Docker image) runs the server with, those NODE_OPTIONS accepts.
const PRODUCTION_FLAGS = { MALLOC_ARENA_MAX: "2", NODE_OPTIONS: "--max-semi-space-size=4 --expose-gc" };

/** Deterministic bytes that deflate cannot shrink much: sha256 in counter mode, as hex text. */
function filler(seed: number, size: number): Uint8Array {
  const out = Buffer.alloc(size);
  let at = 0;
  for (let i = 0; at < size; i++) {
    at += out.write(createHash("sha256").update(`${seed}:${i}`).digest("base64"), at);
  }
  return out;
}

function bigBundle(app: ReturnType<typeof injectedApp>): { bundle: Uint8Array; fillers: Uint8Array[] } {
  const entries: Record<string, Uint8Array> = {};
  const manifest: Record<string, unknown> = {};
  const add = (url: string, type: string, data: Uint8Array, headers: Record<string, string> = {}) => {
    const entry = `files/_/_/${url.replace(/^~\//, "")}`;
    entries[entry] = data;
    manifest[entry] = { type, url, headers };
  };
  add("~/big/app.min.js", "minified_source", Buffer.from(app.js), { "debug-id": app.debugId, sourcemap: "app.min.js.map" });
  add("~/big/app.min.js.map", "source_map", Buffer.from(app.map));
  const fillers: Uint8Array[] = [];
  for (let i = 0; i < FILLERS; i++) {
    fillers.push(filler(i, FILLER_SIZE));
    add(`~/big/vendor-${i}.js`, "source", fillers[i] as Uint8Array);
  }
  entries["manifest.json"] = Buffer.from(JSON.stringify({ files: manifest }));
  return { bundle: zipSync(entries, { level: 1 }), fillers };
}

/** kB fields of /proc/<pid>/status, in bytes. */
function procStatus(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

describe.runIf(process.platform === "linux").each(await dialects())("a 60 MiB bundle streamed on %s", (dialect) => {
  let server: TestServer;
  let t: Tenant;
  let raw: RawUploader;
  let db: Db;

  beforeAll(async () => {
    server = await startServer({ dialect, env: PRODUCTION_FLAGS });
    t = await createTenant(server);
    raw = new RawUploader(server, t);
    db = openDb(server.db.config);
  });
  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  test("upload and assembly raise peak RSS by far less than the bundle; it symbolicates and reads back", async () => {
    const app = injectedApp();
    const { bundle, fillers } = bigBundle(app);
    expect(bundle.length).toBeGreaterThan(55 * MiB);
    const checksum = sha1(bundle);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bundle.length; at += CHUNK) chunks.push(bundle.subarray(at, at + CHUNK));
    const body = { checksum, chunks: chunks.map((c) => sha1(c)), projects: [t.project] };

    const pid = server.proc.pid as number;
    // The bundle is not there yet (and the server has served an assemble call before measuring).
    // Tried twice: the pooled connection from startServer's readiness poll may have been closed
    // by the server's keep-alive timeout while the tenant was created (undici: "other side closed").
    const first = await raw.assemble(body).catch(() => raw.assemble(body));
    expect(first.state).toBe("not_found");
    const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;
    /** Runs `phase` with the peak reset first: how far RSS rose above where it started. */
    async function peakRise(phase: () => Promise<void>): Promise<number> {
      fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
      const before = procStatus(pid);
      await phase();
      const rise = procStatus(pid).hwm - before.rss;
      return rise;
    }
    // Two chunks a request (as the CLIs batch them under SOURCEMAP_MAX_REQUEST_SIZE).
    const upload = await peakRise(async () => {
      for (let i = 0; i < chunks.length; i += 2) {
        const res = await raw.chunks(chunks.slice(i, i + 2).map((data) => ({ data })));
        expect(res.status).toBe(200);
      }
    });
    const assembly = await peakRise(async () => {
      expect(await raw.assemble(body)).toEqual({ state: "ok", missingChunks: [], detail: null });
    });
    console.log(
      `[bundle-memory ${dialect}] bundle ${mib(bundle.length)}; peak RSS rise: chunk upload ${mib(upload)}, assembly ${mib(assembly)}; ` +
        `load ${fs.readFileSync("/proc/loadavg", "utf8").trim()}`,
    );
    // Assembly holds one entry at a time (before: every chunk, their join and every file's gzip,
    // 217 MiB here). Measured 14-70 MiB: the spread is garbage V8 has not collected yet (chunk
    // pieces read back, on PostgreSQL as hex text), not data held; the bound guards against a
    // return to holding the bundle, whose peak is several times its size.
    expect(assembly).toBeLessThan(bundle.length * 1.5);
    // Uploading holds one chunk, but each 16 MiB request churns ~48 MiB of short-lived buffers
    // (socket reads, Next's copy of the body, inflated pieces, the joined chunk) that V8 collects
    // only once ~64 MiB of them pile up, glibc keeps some of the pages, and on SQLite the page
    // cache (cache_size, 32 MB) fills with the chunk rows: bounded by those, not by the bundle.
    // Measured 85-131 MiB; before, 182 MiB. A guard against regressions, not a tight bound.
    expect(upload).toBeLessThan(bundle.length * 2.5);

    // The map in the bundle symbolicates an event.
    const id = await sendEvent(server, t.dsn, vectorEvent({ file: "http://x/big/app.min.js", debugId: app.debugId }));
    const event = await storedEvent(server, t, id, (e) => topFrame(e).filename === "src/app.js", "the symbolicated event");
    expect(topFrame(event)).toMatchObject({ function: "thrower", lineno: 2, colno: 9 });

    // A filler file reads back byte-identical.
    const row = await db.kysely.selectFrom("artifact_files").select("id").where("url", "=", "~/big/vendor-37.js").executeTakeFirstOrThrow();
    const back = await readArtifactFile(db, Number(row.id));
    expect(back && sha1(back)).toBe(sha1(fillers[37] as Uint8Array));
  }, 300_000);
});
