import { describe, expect, test } from "vitest";
import { guideFor } from "../onboarding/platforms";
import { formatRate } from "../releases/health";
import { outcomeDays } from "./outcomes-chart";

const DAY = 86_400_000;

describe("product figures", () => {
  test("crash-free rates are floored, never rounded up to 100%", () => {
    expect(formatRate(1)).toBe("100%");
    expect(formatRate(29_999 / 30_000)).toBe("99.99%");
    expect(formatRate(0.98)).toBe("98.00%");
    expect(formatRate(0)).toBe("0.00%");
  });

  test("outcome counters become per-day totals ending today, zero-filled, outside days and names ignored", () => {
    const now = 10 * DAY + 5 * 3_600_000;
    const days = outcomeDays(
      [
        { hour: 10 * DAY + 3_600_000, outcome: "accepted", quantity: 5 },
        { hour: 10 * DAY + 2 * 3_600_000, outcome: "accepted", quantity: 2 },
        { hour: 9 * DAY, outcome: "rate_limited", quantity: 3 },
        { hour: 8 * DAY, outcome: "client_discard", quantity: 9 },
        { hour: 2 * DAY, outcome: "invalid", quantity: 1 },
      ],
      now,
      3,
    );
    expect(days.map((d) => d.day)).toEqual([8 * DAY, 9 * DAY, 10 * DAY]);
    expect(days.map((d) => d.counts)).toEqual([
      { accepted: 0, filtered: 0, rate_limited: 0, invalid: 0 },
      { accepted: 0, filtered: 0, rate_limited: 3, invalid: 0 },
      { accepted: 7, filtered: 0, rate_limited: 0, invalid: 0 },
    ]);
  });

  test("platform ids open their SDK guide", () => {
    expect(guideFor("javascript-nextjs")).toBe("nextjs");
    expect(guideFor("javascript-react")).toBe("react");
    expect(guideFor("javascript-vue")).toBe("browser");
    expect(guideFor("node-express")).toBe("node");
    expect(guideFor("python-django")).toBe("python");
    expect(guideFor("go")).toBe("other");
  });
});
