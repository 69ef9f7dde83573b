import { describe, expect, it } from "vitest";
import { isAppError } from "./errors";
import { legacySeries, parseGroupBy, parseInterval, statsV2, type UsageRow } from "./usage-stats";

const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 24, 0);
const row = (hour: number, category: string, outcome: UsageRow["outcome"], quantity: number, projectId = 1, reason = ""): UsageRow => ({
  projectId,
  hour: T0 + hour * H,
  category,
  outcome,
  reason,
  quantity,
});

const rows: UsageRow[] = [
  row(0, "error", "accepted", 5),
  row(0, "error", "rate_limited", 2, 1, "key_quota"),
  row(1, "error", "filtered", 1, 1, "duplicate"),
  row(1, "transaction", "accepted", 7),
  row(2, "error", "client_discard", 9, 1, "sample_rate"),
  row(2, "default", "accepted", 3, 2),
];

describe("legacy project stats", () => {
  it("counts event categories per bucket, every bucket present, in epoch seconds", () => {
    const q = { start: T0, end: T0 + 3 * H, interval: H };
    expect(legacySeries(rows, { ...q, stat: "received" })).toEqual([
      [T0 / 1000, 7],
      [T0 / 1000 + 3600, 1],
      [T0 / 1000 + 7200, 3],
    ]);
    expect(legacySeries(rows, { ...q, stat: "rejected" }).map(([, n]) => n)).toEqual([2, 0, 0]);
    expect(legacySeries(rows, { ...q, stat: "blacklisted" }).map(([, n]) => n)).toEqual([0, 1, 0]);
    expect(legacySeries(rows, { ...q, interval: 24 * H, stat: "received" })).toEqual([[T0 / 1000, 11]]);
  });
});

describe("stats_v2", () => {
  it("groups by outcome and category with totals and series", () => {
    const r = statsV2(rows, { start: T0, end: T0 + 3 * H, interval: H, groupBy: ["outcome", "category"], field: "sum(quantity)" });
    expect(r.intervals).toHaveLength(3);
    const find = (outcome: string, category: string) => r.groups.find((g) => g.by.outcome === outcome && g.by.category === category);
    expect(find("accepted", "error")).toEqual({
      by: { outcome: "accepted", category: "error" },
      totals: { "sum(quantity)": 5 },
      series: { "sum(quantity)": [5, 0, 0] },
    });
    expect(find("accepted", "transaction")?.series["sum(quantity)"]).toEqual([0, 7, 0]);
    // What SDKs dropped themselves is reported only when asked for.
    expect(find("client_discard", "error")).toBeUndefined();
  });

  it("filters by category, outcome and project", () => {
    const r = statsV2(rows, {
      start: T0,
      end: T0 + 3 * H,
      interval: H,
      groupBy: ["project"],
      field: "sum(quantity)",
      categories: ["error", "default"],
      outcomes: ["accepted"],
    });
    expect(r.groups.map((g) => [g.by.project, g.totals["sum(quantity)"]])).toEqual([
      [1, 5],
      [2, 3],
    ]);
  });

  it("refuses unknown groupings and sub-hour intervals with the field named", () => {
    for (const f of [() => parseGroupBy(["outcome", "color"]), () => parseInterval("5m", H)]) {
      try {
        f();
        throw new Error("expected a validation error");
      } catch (err) {
        expect(isAppError(err) && err.code).toBe("validation_failed");
      }
    }
    expect(parseInterval("1d", H)).toBe(24 * H);
  });
});
