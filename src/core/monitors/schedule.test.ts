import { describe, expect, test } from "vitest";
import { parseCheckIn, parseMonitorConfig } from "./checkin";
import { expectationAfter, missedSince, nextScheduled } from "./schedule";

describe("monitor schedules", () => {
  test("crontab in a timezone across the DST switch (Europe/Vienna, 29 March 2026)", () => {
    const daily = { type: "crontab", value: "30 3 * * *" } as const;
    expect(nextScheduled(daily, "Europe/Vienna", Date.UTC(2026, 2, 28, 3))).toBe(Date.UTC(2026, 2, 29, 1, 30));
    expect(nextScheduled(daily, "Europe/Vienna", Date.UTC(2026, 2, 27, 3))).toBe(Date.UTC(2026, 2, 28, 2, 30));
  });

  test("intervals count from the check-in; margin is added to the deadline", () => {
    const cfg = parseMonitorConfig({ schedule: { type: "interval", value: 10, unit: "minute" }, checkin_margin: 2 });
    if (!cfg.ok) throw new Error(cfg.reason);
    expect(expectationAfter(cfg.value, 0)).toEqual({ nextCheckIn: 600_000, nextCheckInLatest: 720_000 });
  });

  test("missed runs are capped after a long outage, then the schedule resumes from now", () => {
    const cfg = parseMonitorConfig({ schedule: { type: "crontab", value: "* * * * *" } });
    if (!cfg.ok) throw new Error(cfg.reason);
    const m = missedSince(cfg.value, 60_000, 60_000 * 1000, 5);
    expect(m.missed).toHaveLength(5);
    expect(m.missed).toEqual([1, 2, 3, 4, 5].map((i) => i * 60_000));
    expect(m.next.nextCheckIn).toBe(60_000 * 1000);
  });

  test("bad configs and check-ins are refused with a reason", () => {
    expect(parseMonitorConfig({ schedule: { type: "crontab", value: "61 * * * *" } })).toEqual({ ok: false, reason: "invalid_schedule" });
    expect(parseMonitorConfig({ schedule: { type: "crontab", value: "0 * * * *" }, timezone: "Mars/Base" })).toEqual({
      ok: false,
      reason: "invalid_timezone",
    });
    expect(parseMonitorConfig({ schedule: { type: "interval", value: 0, unit: "minute" } })).toEqual({
      ok: false,
      reason: "invalid_schedule",
    });
    expect(parseCheckIn({ monitor_slug: "x", status: "weird", check_in_id: "a".repeat(32) })).toEqual({
      ok: false,
      reason: "invalid_check_in_status",
    });
    expect(parseCheckIn({ monitor_slug: "x", status: "ok", check_in_id: "nope" })).toEqual({ ok: false, reason: "invalid_check_in_id" });
  });
});
