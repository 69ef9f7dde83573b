/**
 * Bad input is harmless, over real HTTP: hostile envelopes (fast-check) in every content encoding
 * end in 200 or a catalogue 4xx — never a 500, never a throw out of the handler — and whatever was
 * accepted is digested without leaving anything stuck; decompression bombs of 1 GiB (gzip,
 * deflate, brotli) are refused with 413 at the default limits, quickly; slow bodies time out and
 * a client that disconnects mid-body leaves nothing behind. SQLite only: nothing here depends on
 * the database dialect.
 */
import net from "node:net";
import zlib from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ERROR_CATALOGUE, type ErrorCode } from "../../src/core/errors";
import type { Db } from "../../src/storage/db";
import { queueDepth } from "../../src/storage/queue/queue";
import { openTestDb } from "../helpers/test-db";
import { drain } from "../pipeline/helpers";
import { hostileEnvelope } from "./arbitraries";
import { eventEnvelope, type HandlerServer, type Reply, request, type SeededProject, seedProject, startHandler } from "./helpers";

const MiB = 1024 * 1024;

type Encoding = "identity" | "gzip" | "deflate" | "br" | "garbage-gzip" | "bogus";

function encode(body: Buffer, enc: Encoding): { body: Buffer; header?: string } {
  switch (enc) {
    case "identity":
      return { body };
    case "gzip":
      return { body: zlib.gzipSync(body), header: "gzip" };
    case "deflate":
      return { body: zlib.deflateSync(body), header: "deflate" };
    case "br":
      return { body: zlib.brotliCompressSync(body), header: "br" };
    case "garbage-gzip":
      return { body: Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0]), body]), header: "gzip" };
    case "bogus":
      return { body, header: "zstd-ish" };
  }
}

function expectHarmless(r: Reply, what: string): void {
  if (r.status === 200) return;
  expect(r.status >= 400 && r.status < 500, `${what}: status ${r.status} ${r.text}`).toBe(true);
  const code = r.json.code as ErrorCode;
  expect(ERROR_CATALOGUE[code]?.status, `${what}: ${r.text}`).toBe(r.status);
  expect(r.headers["x-sentry-error"]).toBeTruthy();
}

/** A gzip stream of `total` zeros: gzip members concatenate, so one small member is repeated. */
function gzipBomb(total: number): Buffer {
  const member = zlib.gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
  return Buffer.concat(Array(Math.ceil(total / (64 * MiB))).fill(member));
}

/** A zlib-wrapped deflate stream of `total` zeros, from repeated full-flush blocks (milliseconds to build). */
function deflateBomb(total: number): Buffer {
  const block = zlib.deflateRawSync(Buffer.alloc(MiB), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array(Math.ceil(total / MiB)).fill(block), zlib.deflateRawSync(Buffer.alloc(0))]);
}

/** A brotli stream of `total` zeros, compressed from one reused zero chunk (no GiB in memory). */
async function brotliBomb(total: number): Promise<Buffer> {
  const chunk = Buffer.alloc(4 * MiB);
  const parts: Buffer[] = [];
  const z = zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } });
  z.on("data", (c: Buffer) => parts.push(c));
  const done = new Promise<void>((resolve, reject) => {
    z.on("end", resolve);
    z.on("error", reject);
  });
  for (let i = 0; i < total / chunk.length; i++) z.write(chunk);
  z.end();
  await done;
  return Buffer.concat(parts);
}

describe("bad input over HTTP (SQLite)", () => {
  let db: Db;
  let close: () => Promise<void>;
  let s: HandlerServer;
  let p: SeededProject;
  let url: string;
  beforeAll(async () => {
    ({ db, close } = await openTestDb("sqlite"));
    // Default limits (SPEC §5).
    s = await startHandler(db, { OUTCOME_FLUSH_MS: "50" });
    p = await seedProject(db, "hostile");
    url = `/api/${p.projectId}/envelope/?sentry_key=${p.key}`;
  });
  afterAll(async () => {
    await s.close();
    await close();
  });

  test("hostile envelopes in every encoding: 200 or a catalogue 4xx; the digest copes with all that was accepted", async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const encodings = fc.constantFrom<Encoding>("identity", "identity", "gzip", "deflate", "br", "garbage-gzip", "bogus");
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(hostileEnvelope, encodings, fc.boolean(), async (raw, enc, chunked) => {
        const e = encode(raw, enc);
        const r = await request(s.base, url, e.body, { headers: e.header ? { "content-encoding": e.header } : {}, chunked });
        expectHarmless(r, `${enc}${chunked ? " chunked" : ""}`);
        if (r.status === 200) accepted += 1;
      }),
      { numRuns: 150 },
    );
    // Some of the mutated captures are still valid envelopes.
    expect(accepted).toBeGreaterThan(0);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * MiB);
    // Everything accepted is digested (or counted invalid): nothing stays queued, nothing throws.
    await drain(db, Date.now());
    expect(await queueDepth(db)).toBe(0);
    // The server is still fine.
    expect((await request(s.base, url, eventEnvelope("0123456789abcdef0123456789abcdef"))).status).toBe(200);
  });

  test("decompression bombs of 1 GiB (gzip, deflate, brotli) → 413 at the 100 MiB limit, quickly", async () => {
    const bombs: Array<[string, Buffer]> = [
      ["gzip", gzipBomb(1024 * MiB)],
      ["deflate", deflateBomb(1024 * MiB)],
      ["br", await brotliBomb(1024 * MiB)],
    ];
    const before = await queueDepth(db);
    for (const [enc, body] of bombs) {
      expect(body.length).toBeLessThan(2 * MiB);
      const cpu0 = process.cpuUsage();
      const r = await request(s.base, url, body, { headers: { "content-encoding": enc }, chunked: true });
      const cpu = process.cpuUsage(cpu0);
      expect({ enc, status: r.status, code: r.json.code }).toEqual({ enc, status: 413, code: "payload_too_large" });
      // Inflating the whole GiB costs 2.3–5 s of CPU here; stopping at 100 MiB about a tenth of that
      // (up to 1.6 s on a machine loaded 10×). CPU time of this process, not wall time.
      expect((cpu.user + cpu.system) / 1000, enc).toBeLessThan(2200);
    }
    expect(await queueDepth(db)).toBe(before);
  });

  test("many bombs at once: the shared read budget bounds memory (413, 503 or 408, never a crash)", async () => {
    const bomb = gzipBomb(1024 * MiB);
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const before = process.memoryUsage().rss;
    try {
      const replies = await Promise.all(
        Array.from({ length: 8 }, () => request(s.base, url, bomb, { headers: { "content-encoding": "gzip" }, chunked: true })),
      );
      const codes = replies.map((r) => r.json.code);
      // (On a loaded machine the body timeout may also cut a bomb off while the others inflate: 408.)
      expect(
        codes.every((c) => c === "payload_too_large" || c === "overloaded" || c === "request_timeout"),
        codes.join(),
      ).toBe(true);
      // 8 × 100 MiB would be 800 MiB; the budget keeps the sum near 256 MiB.
      expect(codes).toContain("overloaded");
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThan(450 * MiB);
    expect((await request(s.base, url, eventEnvelope("00000000000000000000000000000def"))).status).toBe(200);
  });

  test("a slow body times out with 408; a client gone mid-body (gzip, chunked) leaves nothing queued", async () => {
    const slowHandler = await startHandler(db, { INGEST_BODY_TIMEOUT_MS: "1000" });
    const { port } = new URL(slowHandler.base);
    const before = await queueDepth(db);
    const slow = await new Promise<string>((resolve) => {
      let out = "";
      const sock = net.connect(Number(port), "127.0.0.1", () => {
        sock.write(`POST ${url} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{}\n{"\r\n`);
      });
      sock.on("data", (d) => {
        out += d.toString();
      });
      sock.on("close", () => resolve(out));
      sock.on("error", () => resolve(out));
    });
    expect(slow).toMatch(/^HTTP\/1\.1 408/);
    const gz = zlib.gzipSync(Buffer.from(eventEnvelope("fedcba9876543210fedcba9876543210", { message: "x".repeat(50_000) })));
    await new Promise<void>((resolve) => {
      const sock = net.connect(Number(port), "127.0.0.1", () => {
        sock.write(`POST ${url} HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n`);
        const half = gz.subarray(0, gz.length >> 1);
        sock.write(`${half.length.toString(16)}\r\n`);
        sock.write(half);
        sock.write("\r\n", () => {
          sock.destroy();
          resolve();
        });
      });
    });
    // The server notices the disconnect; then a normal request goes through and only it is queued.
    expect((await request(slowHandler.base, url, eventEnvelope("00000000000000000000000000000abc"))).status).toBe(200);
    expect(await queueDepth(db)).toBe(before + 1);
    await slowHandler.close();
  });
});
