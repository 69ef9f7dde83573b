import { describe, expect, test } from "vitest";
import { parseCheckIn, ZERO_CHECK_IN_ID } from "../../core/monitors/checkin";
import { cronCheckInPayload } from "./cron-checkin";

describe("Sentry's HTTP check-in endpoint", () => {
  test("curl's query parameters become a check_in payload; no id is Sentry's zero id", () => {
    const p = cronCheckInPayload("nightly-backup", new URLSearchParams("status=ok&environment=dev&duration=12.5"), {});
    expect(p).toEqual({ monitor_slug: "nightly-backup", status: "ok", environment: "dev", duration: 12.5, check_in_id: ZERO_CHECK_IN_ID });
    expect(parseCheckIn(p)).toMatchObject({ ok: true, value: { status: "ok", environment: "dev", duration: 12.5 } });
  });

  test("a JSON body wins over the query, and carries monitor_config for an upsert", () => {
    const body = {
      status: "in_progress",
      check_in_id: "83a7c03e-d0a0-4e1b-97e2-e3b18d38f244",
      monitor_config: { schedule: { type: "crontab", value: "0 * * * *" } },
    };
    const p = cronCheckInPayload("hourly", new URLSearchParams("status=error"), body);
    const parsed = parseCheckIn(p);
    expect(parsed).toMatchObject({ ok: true, value: { status: "in_progress", checkInId: "83a7c03ed0a04e1b97e2e3b18d38f244" } });
  });

  test("a bad status is refused by the same parser the envelope path uses", () => {
    expect(parseCheckIn(cronCheckInPayload("x", new URLSearchParams("status=done"), {}))).toEqual({
      ok: false,
      reason: "invalid_check_in_status",
    });
  });
});
