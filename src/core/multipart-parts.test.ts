import { describe, expect, test } from "vitest";
import { MultipartError, type MultipartEvent, MultipartParser, multipartBoundary } from "./multipart-parts";

/** A body as fetch's FormData writes it. */
async function formBody(parts: Array<{ name: string; filename?: string; data: Uint8Array | string }>) {
  const form = new FormData();
  for (const p of parts) {
    if (p.filename === undefined) form.append(p.name, String(p.data));
    else form.append(p.name, new Blob([typeof p.data === "string" ? p.data : Buffer.from(p.data)]), p.filename);
  }
  const req = new Request("http://x/", { method: "POST", body: form });
  return { bytes: new Uint8Array(await req.arrayBuffer()), boundary: multipartBoundary(req.headers.get("content-type") ?? "") as string };
}

/** Parses in pieces of `step` bytes and joins each part's data back together. */
function parse(bytes: Uint8Array, boundary: string, step: number) {
  const p = new MultipartParser(boundary);
  const events: MultipartEvent[] = [];
  for (let at = 0; at < bytes.length; at += step) events.push(...p.push(bytes.subarray(at, at + step)));
  p.end();
  const parts: Array<{ name: string; filename: string | null; data: Buffer }> = [];
  for (const e of events) {
    if (e.kind === "part") parts.push({ name: e.name, filename: e.filename, data: Buffer.alloc(0) });
    else if (e.kind === "data") {
      const last = parts.at(-1) as { data: Buffer };
      last.data = Buffer.concat([last.data, e.bytes]);
    }
  }
  return parts;
}

describe("streaming multipart parser", () => {
  test("parts come out whole whatever the piece size, boundary-like bytes included", async () => {
    const tricky = Buffer.concat([Buffer.from("\r\n--not-the-boundary\r\n"), Buffer.alloc(5_000, 0x2d), Buffer.from("\r\n")]);
    const { bytes, boundary } = await formBody([
      { name: "field", data: "value" },
      { name: "file_gzip", filename: "abc", data: tricky },
      { name: "file", filename: "def", data: new Uint8Array(0) },
    ]);
    for (const step of [1, 7, 64, 4096, bytes.length]) {
      const parts = parse(bytes, boundary, step);
      expect(parts.map((p) => [p.name, p.filename, p.data.length])).toEqual([
        ["field", null, 5],
        ["file_gzip", "abc", tricky.length],
        ["file", "def", 0],
      ]);
      expect(parts[1]?.data.equals(tricky)).toBe(true);
    }
  });

  test("only the tail that may start a boundary is kept between pushes", async () => {
    const { bytes, boundary } = await formBody([{ name: "file", filename: "a", data: new Uint8Array(1 << 20) }]);
    const p = new MultipartParser(boundary);
    let out = 0;
    for (let at = 0; at < bytes.length; at += 65_536) {
      for (const e of p.push(bytes.subarray(at, at + 65_536))) if (e.kind === "data") out += e.bytes.length;
      // Everything pushed so far came out except at most one delimiter's worth.
      expect(Math.min(at + 65_536, bytes.length) - out).toBeLessThan(300);
    }
    expect(p.done).toBe(true);
  });

  test("a body cut short or without a name is refused", async () => {
    const { bytes, boundary } = await formBody([{ name: "file", filename: "a", data: "xyz" }]);
    expect(() => parse(bytes.subarray(0, bytes.length - 10), boundary, 16)).toThrow(MultipartError);
    const nameless = Buffer.from(`--b\r\ncontent-disposition: form-data\r\n\r\nx\r\n--b--\r\n`);
    expect(() => parse(nameless, "b", 5)).toThrow(/no form-data name/);
  });

  test("boundary from the content type", () => {
    expect(multipartBoundary('multipart/form-data; boundary="a b"')).toBe("a b");
    expect(multipartBoundary("multipart/form-data; charset=utf-8; boundary=xyz")).toBe("xyz");
    expect(multipartBoundary("application/json")).toBeNull();
  });
});
