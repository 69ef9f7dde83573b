import { describe, expect, test } from "vitest";
import { normalizeEvent } from "../normalize-event";
import { parseTimestamp } from "./timestamps";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/timestamps", () => {
  test("timestamps: float, RFC 3339 (with and without zone), out of range → receive time + note", () => {
    expect(parseTimestamp(1795343915.64)).toBe(1795343915.64);
    expect(parseTimestamp("2026-11-22T10:43:55.459Z")).toBeCloseTo(Date.UTC(2026, 10, 22, 10, 43, 55, 459) / 1000, 6);
    expect(parseTimestamp("2026-11-22T10:43:55.123456")).toBeCloseTo(Date.UTC(2026, 10, 22, 10, 43, 55) / 1000 + 0.123456, 6);
    expect(parseTimestamp("2026-11-22T12:43:55+02:00")).toBe(Date.UTC(2026, 10, 22, 10, 43, 55) / 1000);
    expect(parseTimestamp("yesterday")).toBeUndefined();
    const past = normalizeEvent({ timestamp: NOW / 1000 - 31 * 86400 }, ctx);
    expect(past.timestamp).toBe(NOW / 1000);
    expect(past.errata.notes[0]?.type).toBe("clock_drift");
    const future = normalizeEvent({ timestamp: NOW / 1000 + 120 }, ctx);
    expect(future.timestamp).toBe(NOW / 1000);
    const ok = normalizeEvent({ timestamp: NOW / 1000 - 3600 }, ctx);
    expect(ok.timestamp).toBe(NOW / 1000 - 3600);
    expect(ok.errata.notes).toEqual([]);
  });

  test("clock drift: sent_at ≥ 55 min from the receive time shifts timestamps; less does not", () => {
    const sentAt = NOW - 2 * 3600_000;
    const e = normalizeEvent({ timestamp: sentAt / 1000, breadcrumbs: [{ timestamp: sentAt / 1000 - 1 }] }, { ...ctx, sentAt });
    expect(e.timestamp).toBe(NOW / 1000);
    expect(e.breadcrumbs?.values[0]?.timestamp).toBe(NOW / 1000 - 1);
    expect(e.errata.notes.map((n) => n.type)).toEqual(["clock_drift"]);
    const near = normalizeEvent({ timestamp: NOW / 1000 - 100 }, { ...ctx, sentAt: NOW - 54 * 60_000 });
    expect(near.timestamp).toBe(NOW / 1000 - 100);
    expect(near.errata.notes).toEqual([]);
    // An SDK clock ahead of ours is corrected the other way.
    const ahead = normalizeEvent({ timestamp: NOW / 1000 + 3600 }, { ...ctx, sentAt: NOW + 3600_000 });
    expect(ahead.timestamp).toBe(NOW / 1000);
  });
});
