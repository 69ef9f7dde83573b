import { gzipSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import { decodePayload, encodePayload } from "../../src/storage/events/events";

describe("event payload codec", () => {
  const event = { event_id: "a".repeat(32), message: "héllo", exception: { values: [{ type: "Error", value: "x".repeat(5000) }] } };

  test("round trip; size is the JSON's byte length; the blob is much smaller than the JSON", () => {
    const { blob, size } = encodePayload(event);
    expect(size).toBe(Buffer.byteLength(JSON.stringify(event)));
    expect(blob[0]).toBe(0x01);
    expect(blob.length).toBeLessThan(size / 10);
    expect(decodePayload(blob)).toEqual(event);
  });

  test("events stored before the brotli tag (gzip blobs) still read", () => {
    expect(decodePayload(gzipSync(Buffer.from(JSON.stringify(event))))).toEqual(event);
  });

  test("a damaged blob reads as an empty event, not an error", () => {
    const { blob } = encodePayload(event);
    expect(decodePayload(blob.subarray(0, 20))).toEqual({});
    expect(decodePayload(Buffer.from("not a blob"))).toEqual({});
    expect(decodePayload(Buffer.alloc(0))).toEqual({});
  });
});
