/**
 * Property tests of the envelope parser and of ingest's acceptance step: whatever the bytes, the
 * result is a parsed envelope whose items lie inside the buffer, or an AppError from the catalogue
 * with a 4xx status — never another exception.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ERROR_CATALOGUE, isAppError } from "../../src/core/errors";
import { acceptEnvelope } from "../../src/ingest/accept";
import { parseEnvelope } from "../../src/ingest/parse-envelope";
import { hostileEnvelope, mutatedCapture, randomEnvelope } from "./arbitraries";

const LIMITS = { maxHeaderLine: 8192, maxEventSize: 64 * 1024, maxAttachmentSize: 64 * 1024 };

function catalogued(err: unknown): boolean {
  if (!isAppError(err)) return false;
  const status = ERROR_CATALOGUE[err.code]?.status;
  return status === 400 || status === 413;
}

function checkParse(buf: Buffer): void {
  let env: ReturnType<typeof parseEnvelope>;
  try {
    env = parseEnvelope(buf, LIMITS);
  } catch (err) {
    expect(catalogued(err), String(err)).toBe(true);
    return;
  }
  expect(typeof env.headers).toBe("object");
  for (const item of env.items) {
    expect(typeof item.headers.type).toBe("string");
    expect(item.start).toBeGreaterThanOrEqual(0);
    expect(item.end).toBeLessThanOrEqual(buf.length);
    expect(item.end - item.payload.length).toBeGreaterThan(item.start);
    if (typeof item.headers.length === "number") expect(item.payload.length).toBe(item.headers.length);
  }
}

describe("envelope parser under hostile input (fast-check)", () => {
  test("random structures: parsed consistently or a catalogue 400/413", () => {
    fc.assert(fc.property(randomEnvelope, checkParse), { numRuns: 400 });
  });

  test("mutated real captures: parsed consistently or a catalogue 400/413", () => {
    fc.assert(fc.property(mutatedCapture, checkParse), { numRuns: 400 });
  });

  test("arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (b) => checkParse(Buffer.from(b))),
      { numRuns: 300 },
    );
  });

  test("acceptEnvelope: a queued body that parses again, with a 32-hex id when it has one", () => {
    fc.assert(
      fc.property(hostileEnvelope, (buf) => {
        let a: ReturnType<typeof acceptEnvelope>;
        try {
          a = acceptEnvelope(buf, LIMITS);
        } catch (err) {
          expect(catalogued(err), String(err)).toBe(true);
          return;
        }
        if (a.eventId !== undefined) expect(a.eventId).toMatch(/^[0-9a-f]{32}$/);
        if (a.empty || a.kept.length === 0) return;
        const again = parseEnvelope(a.body, LIMITS);
        expect(again.items.map((i) => i.headers.type)).toEqual(a.kept);
        if (a.eventId !== undefined) expect(again.headers.event_id).toBe(a.eventId);
      }),
      { numRuns: 400 },
    );
  });
});
