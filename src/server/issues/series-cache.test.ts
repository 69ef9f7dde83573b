import { describe, expect, test } from "vitest";
import { createSeriesCache, statsJson } from "./series-cache";

describe("series cache", () => {
  test("answers only for the same version, and forgets the least recently used", () => {
    const cache = createSeriesCache(2);
    const a = { "24h": [[1, 2]] as const };
    cache.set(1, "v1", a);
    expect(cache.get(1, "v1")).toBe(a);
    expect(cache.get(1, "v2")).toBeUndefined();
    cache.set(2, "v", { "24h": [] });
    expect(cache.get(1, "v1")).toBe(a); // 1 is now the most recently used
    cache.set(3, "v", { "24h": [] });
    expect(cache.get(2, "v")).toBeUndefined();
    expect(cache.get(1, "v1")).toBe(a);
  });

  test("serializes each stats object once", () => {
    const s = { "14d": [[86400, 3]] as const };
    expect(statsJson(s)).toBe('{"14d":[[86400,3]]}');
    expect(statsJson(s)).toBe(statsJson(s));
  });
});
