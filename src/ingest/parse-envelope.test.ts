import fs from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import { nodeEnvelopeCaptures, SDK_CAPTURES, textCaptures } from "../../test/helpers/ingest-fixtures";
import { AppError } from "../core/errors";
import { normalizeEventId, parseEnvelope, parseJsonObject } from "./parse-envelope";

const limits = { maxHeaderLine: 8 * 1024, maxEventSize: 1024 * 1024, maxAttachmentSize: 20 * 1024 * 1024 };
const b = (s: string) => Buffer.from(s, "utf8");
const text = (u: Uint8Array) => Buffer.from(u).toString("utf8");

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : `not an AppError: ${String(err)}`;
  }
  return undefined;
}

describe("parseEnvelope on recorded @sentry/node requests", () => {
  const captures = nodeEnvelopeCaptures();
  test("all seven captures are present", () => {
    expect(captures.map((c) => c.name.slice(0, 2))).toEqual(["01", "02", "03", "04", "05", "06", "07"]);
  });

  test.each(captures.map((c) => [c.name, c] as const))("%s parses, every item is well formed", (_name, c) => {
    const env = parseEnvelope(c.decoded, limits);
    expect(env.items.length).toBeGreaterThan(0);
    for (const item of env.items) {
      expect(typeof item.headers.type).toBe("string");
      if (typeof item.headers.length === "number") expect(item.payload.length).toBe(item.headers.length);
      // JSON items must parse as objects; attachments are opaque.
      if (item.headers.type !== "attachment") expect(typeof parseJsonObject(item.payload, item.headers.type)).toBe("object");
    }
  });

  test("types per capture match what the SDK sent", () => {
    const types = captures.map((c) =>
      parseEnvelope(c.decoded, limits)
        .items.map((i) => i.headers.type)
        .join(","),
    );
    expect(types).toEqual(["session", "event", "event", "event", "session", "event", "event,attachment"]);
  });

  test("04 is gzip and its .decoded is the plain envelope", () => {
    const c = captures[3];
    expect(c.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(c.body).equals(c.decoded)).toBe(true);
    const env = parseEnvelope(c.decoded, limits);
    expect(normalizeEventId(env.headers.event_id)).toMatch(/^[0-9a-f]{32}$/);
    expect(parseJsonObject(env.items[0].payload, "event").event_id).toBe(env.headers.event_id);
  });

  test("02: the event header id is a 32-hex id", () => {
    const env = parseEnvelope(captures[1].decoded, limits);
    expect(env.headers.event_id).toMatch(/^[0-9a-f]{32}$/);
    expect(env.headers.sdk).toEqual({ name: "sentry.javascript.node", version: "11.12.0" });
  });
});

describe("parseEnvelope on the hand-written and text captures", () => {
  test("example-event-with-attachment.envelope: exact byte lengths", () => {
    const buf = fs.readFileSync(path.join(SDK_CAPTURES, "example-event-with-attachment.envelope"));
    expect(buf.length).toBe(845);
    const env = parseEnvelope(buf, limits);
    expect(env.headers.event_id).toBe("b0a1c2d3e4f5467899aabbccddeeff00");
    expect(env.items.map((i) => i.headers.type)).toEqual(["event", "attachment"]);
    expect(env.items[0].payload.length).toBe(565);
    expect(env.items[1].payload.length).toBe(29);
    expect(text(env.items[1].payload)).toBe("ts=1 level=warn msg=retrying\n");
    expect(env.items[1].headers).toMatchObject({ filename: "client.log", content_type: "text/plain" });
  });

  for (const file of ["browser-sdk-envelope.txt", "node-sdk-envelope.txt"]) {
    test(`${file}: every POST body parses`, () => {
      const posts = textCaptures(file).filter((c) => c.requestLine.startsWith("POST"));
      expect(posts.length).toBeGreaterThanOrEqual(3);
      for (const c of posts) {
        const env = parseEnvelope(c.body, limits);
        expect(env.items.length).toBeGreaterThan(0);
        for (const item of env.items) parseJsonObject(item.payload, item.headers.type);
      }
    });
  }
});

describe("parseEnvelope edge cases (reference §3.1)", () => {
  test("explicit length may cover \\r\\n and \\n inside the payload", () => {
    const payload = "a\r\nb\nc";
    const env = parseEnvelope(
      b(`{}\n{"type":"attachment","length":${Buffer.byteLength(payload)}}\n${payload}\n{"type":"session"}\n{"x":1}`),
      limits,
    );
    expect(env.items.map((i) => text(i.payload))).toEqual([payload, '{"x":1}']);
  });

  test("length counts bytes, not characters", () => {
    const payload = "héllo ✓";
    const env = parseEnvelope(b(`{}\n{"type":"attachment","length":${Buffer.byteLength(payload)}}\n${payload}`), limits);
    expect(text(env.items[0].payload)).toBe(payload);
  });

  test("zero-length attachment, followed by a newline or by EOF", () => {
    const a = parseEnvelope(b('{}\n{"type":"attachment","length":0}\n\n{"type":"session"}\n{}'), limits);
    expect(a.items.map((i) => [i.headers.type, i.payload.length])).toEqual([
      ["attachment", 0],
      ["session", 2],
    ]);
    const c = parseEnvelope(b('{}\n{"type":"attachment","length":0}\n'), limits);
    expect(c.items).toHaveLength(1);
    expect(c.items[0].payload.length).toBe(0);
  });

  test("implicit length runs to EOF", () => {
    const env = parseEnvelope(b('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n{"type":"event"}\n{"message":"hi"}'), limits);
    expect(text(env.items[0].payload)).toBe('{"message":"hi"}');
  });

  test("headers-only envelope is legal and empty (with or without newline)", () => {
    expect(parseEnvelope(b('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}'), limits).items).toEqual([]);
    expect(parseEnvelope(b("{}\n"), limits).items).toEqual([]);
  });

  test("trailing newline after the last item (sentry-python style) is fine", () => {
    const env = parseEnvelope(b('{}\n{"type":"event","length":2}\n{}\n{"type":"session","length":2}\n{}\n'), limits);
    expect(env.items.map((i) => i.headers.type)).toEqual(["event", "session"]);
  });

  test("\\r\\n after header lines is tolerated (the \\r stays with the line)", () => {
    const env = parseEnvelope(b('{}\r\n{"type":"session"}\r\n{"a":1}'), limits);
    expect(env.items).toHaveLength(1);
    expect(text(env.items[0].payload)).toBe('{"a":1}');
  });

  test("missing newline after a length payload → invalid_envelope", () => {
    expect(code(() => parseEnvelope(b('{}\n{"type":"attachment","length":2}\nabX{"type":"session"}\n{}'), limits))).toBe(
      "invalid_envelope",
    );
  });

  test("length past EOF → invalid_envelope", () => {
    expect(code(() => parseEnvelope(b('{}\n{"type":"attachment","length":10}\nabc'), limits))).toBe("invalid_envelope");
  });

  test.each([["-1"], ["1.5"], ['"3"'], ["1e400"], ["true"], ["{}"]])("length %s → invalid_envelope", (len) => {
    expect(code(() => parseEnvelope(b(`{}\n{"type":"attachment","length":${len}}\nabc`), limits))).toBe("invalid_envelope");
  });

  test("oversized header line → payload_too_large", () => {
    const big = `{"pad":"${"x".repeat(9000)}"}`;
    expect(code(() => parseEnvelope(b(`${big}\n{"type":"session"}\n{}`), limits))).toBe("payload_too_large");
    expect(code(() => parseEnvelope(b(`{}\n{"type":"session","pad":"${"x".repeat(9000)}"}\n{}`), limits))).toBe("payload_too_large");
  });

  test("event item over maxEventSize → payload_too_large (implicit and explicit length)", () => {
    const small = { ...limits, maxEventSize: 100 };
    const ev = `{"message":"${"x".repeat(200)}"}`;
    expect(code(() => parseEnvelope(b(`{}\n{"type":"event"}\n${ev}`), small))).toBe("payload_too_large");
    expect(code(() => parseEnvelope(b(`{}\n{"type":"event","length":${ev.length}}\n${ev}`), small))).toBe("payload_too_large");
    // Sessions are not event-sized items.
    expect(parseEnvelope(b(`{}\n{"type":"session"}\n${ev}`), small).items).toHaveLength(1);
  });

  test("attachment over maxAttachmentSize → payload_too_large before reading it", () => {
    expect(code(() => parseEnvelope(b('{}\n{"type":"attachment","length":999999999}\nabc'), { ...limits, maxAttachmentSize: 10 }))).toBe(
      "payload_too_large",
    );
  });

  test("malformed headers → invalid_envelope", () => {
    expect(code(() => parseEnvelope(b(""), limits))).toBe("invalid_envelope");
    expect(code(() => parseEnvelope(b("not json\n"), limits))).toBe("invalid_envelope");
    expect(code(() => parseEnvelope(b("[1,2]\n"), limits))).toBe("invalid_envelope");
    expect(code(() => parseEnvelope(b('{}\n{"length":2}\n{}'), limits))).toBe("invalid_envelope");
    expect(code(() => parseEnvelope(b("{}\n{oops}\n{}"), limits))).toBe("invalid_envelope");
  });

  test("unknown item types and header keys are kept, not rejected", () => {
    const env = parseEnvelope(b('{"future":1}\n{"type":"quantum_item","weird":[1]}\n{}'), limits);
    expect(env.headers.future).toBe(1);
    expect(env.items[0].headers.type).toBe("quantum_item");
  });
});

describe("parseJsonObject / normalizeEventId", () => {
  test("invalid JSON and non-objects → invalid_json", () => {
    expect(code(() => parseJsonObject(b("{"), "event"))).toBe("invalid_json");
    expect(code(() => parseJsonObject(b("[]"), "event"))).toBe("invalid_json");
    expect(code(() => parseJsonObject(b("null"), "event"))).toBe("invalid_json");
  });
  test("event ids: dashes removed, lowercased, else undefined", () => {
    expect(normalizeEventId("9EC79C33-EC99-42AB-8353-589FCB2E04DC")).toBe("9ec79c33ec9942ab8353589fcb2e04dc");
    expect(normalizeEventId("xyz")).toBeUndefined();
    expect(normalizeEventId(42)).toBeUndefined();
  });
});
