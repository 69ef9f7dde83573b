import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { planEviction, projectRetention } from "./retention";

const issue = (issueId: number, stored: number) => ({ issueId, stored, kept: Math.min(stored, 2) });

describe("planEviction: most repeated issues first, never below what an issue keeps", () => {
  test.each([
    // [stored per issue, excess, evict per issue]
    [[12, 5, 1], 8, [8, 0, 0]],
    [[12, 5, 1], 9, [8, 1, 0]],
    [[10, 10], 5, [3, 2]],
    [[10, 10, 10], 3, [1, 1, 1]],
    [[3, 3], 100, [1, 1]],
    [[1, 2], 5, [0, 0]],
    [[100], 0, [0]],
  ])("stored %j, excess %i → %j", (stored, excess, expected) => {
    const plan = planEviction(
      stored.map((n, i) => issue(i + 1, n)),
      excess,
    );
    expect(stored.map((_, i) => plan.find((p) => p.issueId === i + 1)?.evict ?? 0)).toEqual(expected);
  });

  test("the plan is ordered most repeated first", () => {
    expect(planEviction([issue(1, 5), issue(2, 50), issue(3, 20)], 40).map((p) => p.issueId)).toEqual([2, 3]);
  });

  test("property: evicts exactly what it can, never below kept, levels the tallest", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 5000 }),
        (counts, excess) => {
          const issues = counts.map((n, i) => issue(i + 1, n));
          const plan = planEviction(issues, excess);
          const evict = new Map(plan.map((p) => [p.issueId, p.evict]));
          const evictable = issues.reduce((n, i) => n + i.stored - i.kept, 0);
          expect([...evict.values()].reduce((a, b) => a + b, 0)).toBe(Math.min(excess, evictable));
          const remaining = issues.map((i) => ({ ...i, left: i.stored - (evict.get(i.issueId) ?? 0) }));
          for (const r of remaining) expect(r.left).toBeGreaterThanOrEqual(r.kept);
          const cutAboveKept = remaining.filter((r) => (evict.get(r.issueId) ?? 0) > 0 && r.left > r.kept);
          if (cutAboveKept.length > 0) {
            const level = Math.min(...cutAboveKept.map((r) => r.left));
            for (const r of remaining) expect(r.left).toBeLessThanOrEqual(level + 1);
          }
        },
      ),
    );
  });
});

describe("projectRetention", () => {
  test("project settings override the defaults; nonsense falls back", () => {
    const defaults = { days: 90, eventCap: 1_000_000 };
    expect(projectRetention({}, defaults)).toEqual(defaults);
    expect(projectRetention({ retentionDays: 30, eventCap: 5000 }, defaults)).toEqual({ days: 30, eventCap: 5000 });
    expect(projectRetention({ retentionDays: -1, eventCap: "lots" }, defaults)).toEqual(defaults);
  });
});
