import { deflateSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import { AppError } from "../core/errors";
import { acceptEnvelope, acceptStore } from "./accept";
import { parseEnvelope } from "./parse-envelope";

const limits = { maxHeaderLine: 8192, maxEventSize: 1024 * 1024, maxAttachmentSize: 1024 * 1024 };
const ID = "9ec79c33ec9942ab8353589fcb2e04dc";
const b = (s: string) => Buffer.from(s);

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
  return undefined;
}

describe("acceptEnvelope: event id", () => {
  test("header id wins and the body is queued unchanged", () => {
    const buf = b(`{"event_id":"${ID}"}\n{"type":"event"}\n{"event_id":"00000000000000000000000000000001"}`);
    const a = acceptEnvelope(buf, limits);
    expect(a.eventId).toBe(ID);
    expect(a.body).toBe(buf);
  });

  test("payload id is copied into the header; item bytes stay identical", () => {
    const buf = b(`{"sdk":{"name":"x"}}\n{"type":"event"}\n{"event_id":"${ID.toUpperCase()}","message":"m"}`);
    const a = acceptEnvelope(buf, limits);
    expect(a.eventId).toBe(ID);
    const env = parseEnvelope(a.body, limits);
    expect(env.headers).toEqual({ sdk: { name: "x" }, event_id: ID });
    expect(a.body.subarray(a.body.indexOf(0x0a)).equals(buf.subarray(buf.indexOf(0x0a)))).toBe(true);
  });

  test("no id anywhere → a generated uuid4 hex, written into the header", () => {
    const a = acceptEnvelope(b('{}\n{"type":"event"}\n{"message":"m"}'), limits);
    expect(a.eventId).toMatch(/^[0-9a-f]{12}4[0-9a-f]{19}$/);
    expect(parseEnvelope(a.body, limits).headers.event_id).toBe(a.eventId);
  });

  test("dashed header ids are normalised in the queued header", () => {
    const dashed = "9ec79c33-ec99-42ab-8353-589fcb2e04dc";
    const a = acceptEnvelope(b(`{"event_id":"${dashed}"}\n{"type":"event"}\n{}`), limits);
    expect(a.eventId).toBe(ID);
    expect(parseEnvelope(a.body, limits).headers.event_id).toBe(ID);
  });

  test("headers-only envelope without items: no id, empty", () => {
    const a = acceptEnvelope(b("{}"), limits);
    expect(a).toMatchObject({ eventId: undefined, empty: true });
  });

  test("session-only envelope: no id, body untouched", () => {
    const buf = b('{}\n{"type":"session"}\n{"sid":"x"}');
    const a = acceptEnvelope(buf, limits);
    expect(a.eventId).toBeUndefined();
    expect(a.body).toBe(buf);
  });

  test("invalid explicit ids → invalid_event_id", () => {
    expect(code(() => acceptEnvelope(b('{"event_id":"nope"}\n{"type":"event"}\n{}'), limits))).toBe("invalid_event_id");
    expect(code(() => acceptEnvelope(b('{}\n{"type":"event"}\n{"event_id":12}'), limits))).toBe("invalid_event_id");
  });

  test("broken event JSON → invalid_json; broken session JSON is not our business", () => {
    expect(code(() => acceptEnvelope(b('{}\n{"type":"event"}\n{"message":'), limits))).toBe("invalid_json");
    expect(acceptEnvelope(b('{}\n{"type":"session"}\n{oops'), limits).empty).toBe(false);
  });

  test("no id anywhere: the event is not parsed, but an id it could hold is still found", () => {
    const noId = acceptEnvelope(b('{}\n{"type":"event"}\n{"message":"x","extra":{"id":"a"}}'), limits);
    expect(noId.eventId).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.parse(noId.body.toString().split("\n")[0] as string)).toEqual({ event_id: noId.eventId });
    // The id spelled with an escape, or nested beside a top-level one: both parse (last key wins).
    const escaped = acceptEnvelope(b(`{}\n{"type":"event"}\n{"\\u0065vent_id":"${ID}"}`), limits);
    expect(escaped.eventId).toBe(ID);
    const nested = acceptEnvelope(b(`{}\n{"type":"event"}\n{"extra":{"event_id":"x"},"event_id":"${ID}"}`), limits);
    expect(nested.eventId).toBe(ID);
    // Object-shaped but broken and without an id: accepted, the worker stores it with a note.
    expect(acceptEnvelope(b('{}\n{"type":"event"}\n{"message": oops}'), limits).eventId).toMatch(/^[0-9a-f]{32}$/);
  });

  test("the envelope header dsn is surfaced for tunnel auth", () => {
    expect(acceptEnvelope(b('{"dsn":"http://k@h/1"}\n{"type":"session"}\n{}'), limits).dsn).toBe("http://k@h/1");
  });
});

describe("acceptStore", () => {
  const event = { event_id: ID, message: "hello" };
  test("plain JSON with an id is queued unchanged", () => {
    const buf = b(JSON.stringify(event));
    const a = acceptStore(buf, 1024);
    expect(a).toEqual({ body: buf, eventId: ID });
  });
  test("missing id is generated and written into the JSON", () => {
    const a = acceptStore(b('{"message":"x"}'), 1024);
    expect(JSON.parse(a.body.toString())).toEqual({ message: "x", event_id: a.eventId });
  });
  test("base64 and base64(zlib) bodies (old raven clients)", () => {
    const json = JSON.stringify(event);
    expect(acceptStore(b(Buffer.from(json).toString("base64")), 1024).eventId).toBe(ID);
    const a = acceptStore(b(deflateSync(json).toString("base64")), 1024);
    expect(JSON.parse(a.body.toString())).toEqual(event);
  });
  test("a zlib bomb inside base64 stops at the event limit", () => {
    const bomb = deflateSync(Buffer.alloc(50 * 1024 * 1024, 0x20)).toString("base64");
    expect(code(() => acceptStore(b(bomb), 1024 * 1024))).toBe("payload_too_large");
  });
  test("garbage → invalid_json; oversized → payload_too_large", () => {
    expect(code(() => acceptStore(b("%%%"), 1024))).toBe("invalid_json");
    expect(code(() => acceptStore(b('{"a":'), 1024))).toBe("invalid_json");
    expect(code(() => acceptStore(b(`{"a":"${"x".repeat(2000)}"}`), 1024))).toBe("payload_too_large");
  });
});
