import { describe, expect, test } from "vitest";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/trim: data bags", () => {
  test("data bags: small ones are the same object (no copy)", () => {
    const extra = { a: { b: [1, 2, 3] } };
    const e = normalizeEvent({ extra }, ctx);
    expect(e.extra).toBe(extra);
  });
});
