import { describe, expect, test } from "vitest";
import { corpusJson } from "../../../test/pipeline/corpus";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/tags", () => {
  test("tags: dict or pairs → string pairs; values stringified; trimmed to 200", () => {
    const a = normalizeEvent({ tags: { a: 1, b: true, c: null, ["k".repeat(300)]: "v".repeat(300) } }, ctx);
    expect(a.tags?.slice(0, 2)).toEqual([
      ["a", "1"],
      ["b", "true"],
    ]);
    const long = a.tags?.[2];
    expect(long?.[0]).toHaveLength(200);
    expect(long?.[1]).toHaveLength(200);
    expect(a.errata.notes.filter((n) => n.type === "trimmed")).toHaveLength(2);
    const b = normalizeEvent(corpusJson("bugsink/130-w-tuple.json"), ctx);
    expect(b.tags).toEqual([
      ["environment", "production"],
      ["release", "2025.6.2.0"],
    ]);
  });
});
