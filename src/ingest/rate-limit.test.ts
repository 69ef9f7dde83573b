import { describe, expect, test } from "vitest";
import { createBackpressure, createRateLimiter, formatRateLimits } from "./rate-limit";

const T0 = 1_800_000_000_000; // a multiple of 60 s

describe("per-key and per-project limits (fixed windows)", () => {
  test("off by default: 0 means unlimited", () => {
    const l = createRateLimiter({ keyEvents: 0, projectEvents: 0, windowSeconds: 60 });
    for (let i = 0; i < 1000; i++) expect(l.take(1, 1, T0)).toBeUndefined();
  });

  test("per key: the limit per window, then a verdict until the window ends", () => {
    const l = createRateLimiter({ keyEvents: 2, projectEvents: 0, windowSeconds: 60 });
    expect(l.take(1, 10, T0)).toBeUndefined();
    expect(l.take(1, 10, T0 + 1000)).toBeUndefined();
    const v = l.take(1, 10, T0 + 15_500);
    expect(v).toEqual({ retryAfter: 45, categories: ["error", "default", "security"], scope: "key", reason: "key_quota" });
    expect(formatRateLimits(v as NonNullable<typeof v>)).toBe("45:error;default;security:key:key_quota");
    // Another key of the same project is not affected; the next window starts fresh.
    expect(l.take(2, 10, T0 + 16_000)).toBeUndefined();
    expect(l.take(1, 10, T0 + 60_000)).toBeUndefined();
  });

  test("per project: all keys share it, and a refused event does not use up the key's allowance", () => {
    const l = createRateLimiter({ keyEvents: 5, projectEvents: 3, windowSeconds: 10 });
    expect([l.take(1, 7, T0), l.take(2, 7, T0), l.take(3, 7, T0)]).toEqual([undefined, undefined, undefined]);
    expect(l.take(1, 7, T0 + 9_999)).toMatchObject({ scope: "project", reason: "project_quota", retryAfter: 1 });
    expect(l.take(1, 8, T0)).toBeUndefined();
  });
});

describe("a project's own per-minute limit (project settings)", () => {
  test("applies on top of the installation's limits, per project, per minute", () => {
    const l = createRateLimiter({ keyEvents: 0, projectEvents: 0, windowSeconds: 60 });
    expect([l.take(1, 7, T0, 2), l.take(2, 7, T0 + 1, 2)]).toEqual([undefined, undefined]);
    expect(l.take(1, 7, T0 + 30_000, 2)).toEqual({
      retryAfter: 30,
      categories: ["error", "default", "security"],
      scope: "project",
      reason: "project_quota",
    });
    // Other projects and projects without their own limit are unaffected; a new minute starts fresh.
    expect(l.take(3, 8, T0 + 30_000, 2)).toBeUndefined();
    expect(l.take(1, 9, T0 + 30_000, null)).toBeUndefined();
    expect(l.take(1, 7, T0 + 60_000, 2)).toBeUndefined();
  });
});

describe("installation backpressure", () => {
  const probe = (depth: number, free: number | undefined) => ({
    queueEstimate: async () => depth + 10,
    queueExact: async () => depth,
    freeDisk: async () => free,
  });

  test("queue deeper than the limit → all categories refused; the exact count decides", async () => {
    const seen: number[] = [];
    const deep = createBackpressure({ maxQueue: 100, minFreeDisk: 0, checkIntervalMs: 60_000 }, probe(101, undefined), (d) => seen.push(d));
    await deep.refresh();
    expect(deep.check()).toEqual({ retryAfter: 60, categories: [], scope: "organization", reason: "queue_full" });
    expect(formatRateLimits(deep.check() as NonNullable<ReturnType<typeof deep.check>>)).toBe("60::organization:queue_full");
    expect(seen.at(-1)).toBe(101);
    deep.close();
    // The estimate is over the limit but the exact depth is not: accepted.
    const near = createBackpressure({ maxQueue: 100, minFreeDisk: 0, checkIntervalMs: 60_000 }, probe(95, undefined));
    await near.refresh();
    expect(near.check()).toBeUndefined();
    near.close();
  });

  test("free disk under the limit → refused; unknown free space is no reason to refuse", async () => {
    const full = createBackpressure({ maxQueue: 0, minFreeDisk: 1024, checkIntervalMs: 60_000 }, probe(0, 1000));
    await full.refresh();
    expect(full.check()?.reason).toBe("disk_full");
    full.close();
    const pg = createBackpressure({ maxQueue: 0, minFreeDisk: 1024, checkIntervalMs: 60_000 }, probe(0, undefined));
    await pg.refresh();
    expect(pg.check()).toBeUndefined();
    pg.close();
  });

  test("a failing measurement keeps the previous verdict", async () => {
    let fail = false;
    const bp = createBackpressure(
      { maxQueue: 1, minFreeDisk: 0, checkIntervalMs: 60_000 },
      {
        queueEstimate: async () => {
          if (fail) throw new Error("db gone");
          return 5;
        },
        queueExact: async () => 5,
        freeDisk: async () => undefined,
      },
    );
    await bp.refresh();
    expect(bp.check()?.reason).toBe("queue_full");
    fail = true;
    await bp.refresh();
    expect(bp.check()?.reason).toBe("queue_full");
    bp.close();
  });
});
