import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { acceptsGzip, gzipApiJson } from "./gzip-api-json";

// A real HTTP server whose handler writes as Next.js does: headers set, flushHeaders() at the
// first chunk, the body in chunks, then end().
const bodies: Record<string, { type: string; chunks: string[]; status?: number }> = {
  "/list": { type: "application/json", chunks: ["[", Array.from({ length: 300 }, (_, i) => `{"id":"${i}"}`).join(","), "]"] },
  "/small": { type: "application/json", chunks: ['{"ok":true}'], status: 201 },
  "/text": { type: "text/plain", chunks: ["x".repeat(5000)] },
  "/big": { type: "application/json", chunks: [`"${"y".repeat(700_000)}`, `${"z".repeat(700_000)}"`] },
  "/empty": { type: "application/json", chunks: [], status: 204 },
};

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    gzipApiJson(req, res);
    const b = bodies[req.url ?? ""] ?? { type: "application/json", chunks: ["{}"] };
    res.statusCode = b.status ?? 200;
    res.setHeader("content-type", b.type);
    res.setHeader("link", "<x>");
    b.chunks.forEach((c, i) => {
      if (i === 0) res.flushHeaders();
      res.write(c);
    });
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** The raw answer: node:http does not decode, so what was sent is what is seen. */
function raw(
  path: string,
  encoding: string | null,
  method = "GET",
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers: encoding ? { "accept-encoding": encoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("gzipApiJson", () => {
  test("reads Accept-Encoding as HTTP does", () => {
    expect(acceptsGzip("gzip, deflate, br")).toBe(true);
    expect(acceptsGzip("br;q=1.0, gzip;q=0.8")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("identity")).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  test("a JSON answer goes out gzipped in one piece, with its length and headers", async () => {
    const r = await raw("/list", "gzip, deflate");
    expect(r.headers["content-encoding"]).toBe("gzip");
    expect(Number(r.headers["content-length"])).toBe(r.body.length);
    expect(r.headers.vary).toMatch(/Accept-Encoding/);
    expect(r.headers.link).toBe("<x>");
    expect(JSON.parse(gunzipSync(r.body).toString())).toHaveLength(300);
    // fetch decodes it as any client does
    expect(await (await fetch(`${base}/list`)).json()).toHaveLength(300);
  });

  test("anything else goes out as it came", async () => {
    const plain = await raw("/list", null);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(plain.body.toString())).toHaveLength(300);
    const small = await raw("/small", "gzip");
    expect([small.status, small.headers["content-encoding"], small.body.toString()]).toEqual([201, undefined, '{"ok":true}']);
    const text = await raw("/text", "gzip");
    expect([text.headers["content-encoding"], text.body.length]).toEqual([undefined, 5000]);
    const big = await raw("/big", "gzip");
    expect(big.headers["content-encoding"]).toBeUndefined();
    expect(big.body.length).toBe(1_400_002);
    const empty = await raw("/empty", "gzip");
    expect([empty.status, empty.body.length]).toEqual([204, 0]);
    const head = await raw("/list", "gzip", "HEAD");
    expect(head.headers["content-encoding"]).toBeUndefined();
  });
});
