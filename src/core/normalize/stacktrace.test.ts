import { describe, expect, test } from "vitest";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/stacktrace", () => {
  test("frames: 50 keep detail, in-app ones first, at both ends of the stack", () => {
    const frames = Array.from({ length: 120 }, (_, i) => ({ function: `f${i}`, in_app: i >= 100, pre_context: ["x"], vars: { i } }));
    const e = normalizeEvent({ exception: { values: [{ type: "E", stacktrace: { frames } }] } }, ctx);
    const out = e.exception?.values[0]?.stacktrace?.frames ?? [];
    const detailed = out.flatMap((f, i) => (f.pre_context ? [i] : []));
    expect(detailed).toHaveLength(50);
    // all 20 in-app frames, and 15 system frames from each end
    expect(detailed.filter((i) => i >= 100)).toHaveLength(20);
    expect(detailed.slice(0, 15)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(detailed.slice(15, 30)).toEqual(Array.from({ length: 15 }, (_, i) => 85 + i));
    expect(out[50]?.vars).toBeUndefined();
    expect(e.errata.notes).toEqual([
      { type: "trimmed", path: "exception.values.0.stacktrace.frames", detail: expect.stringContaining("70 frame(s)") },
    ]);
  });

  test("top-level stacktrace is normalised like the others", () => {
    const e = normalizeEvent({ stacktrace: { frames: [{ filename: "https://x.test/a.js" }] } }, ctx);
    expect((e.stacktrace as { frames: unknown[] }).frames).toEqual([{ abs_path: "https://x.test/a.js", filename: "/a.js" }]);
  });
});
