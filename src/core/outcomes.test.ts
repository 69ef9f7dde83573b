import { describe, expect, test } from "vitest";
import { hourStart, isSupportedItem, itemCategory, OutcomeTally, outcomeOfError, parseClientReport } from "./outcomes";

const NOW = Date.UTC(2026, 10, 22, 10, 41, 30);

describe("item categories and support", () => {
  test("every item type maps to its Sentry data category", () => {
    expect(itemCategory("event")).toBe("error");
    expect(itemCategory("attachment")).toBe("attachment");
    expect(itemCategory("session")).toBe("session");
    expect(itemCategory("sessions")).toBe("session");
    expect(itemCategory("client_report")).toBe("internal");
    expect(itemCategory("raw_security")).toBe("security");
    expect(itemCategory("replay_recording")).toBe("replay");
    expect(itemCategory("check_in")).toBe("monitor");
    expect(itemCategory("log")).toBe("log_item");
    expect(itemCategory("something_new")).toBe("default");
  });

  test("stored types are supported (spans, logs, trace metrics, session replays); profiles, mobile replay video, statsd metrics and unknown types are not", () => {
    for (const t of [
      "event",
      "attachment",
      "user_report",
      "feedback",
      "session",
      "sessions",
      "client_report",
      "raw_security",
      "transaction",
      "span",
      "log",
      "trace_metric",
      "check_in",
      "replay_event",
      "replay_recording",
    ]) {
      expect(isSupportedItem(t), t).toBe(true);
    }
    for (const t of ["profile", "profile_chunk", "replay_video", "statsd", "x"]) {
      expect(isSupportedItem(t), t).toBe(false);
    }
  });

  test("catalogue errors carry their outcome", () => {
    expect(outcomeOfError("invalid_envelope")).toBe("invalid");
    expect(outcomeOfError("rate_limited")).toBe("rate_limited");
    expect(outcomeOfError("project_disabled")).toBe("filtered");
    expect(outcomeOfError("not_found")).toBeUndefined();
  });
});

describe("OutcomeTally", () => {
  test("counts merge per project, key, hour, category, outcome and reason", () => {
    const t = new OutcomeTally();
    t.add(1, 2, NOW, "error", "accepted");
    t.add(1, 2, NOW + 60_000, "error", "accepted");
    t.add(1, 2, NOW, "error", "filtered", "duplicate");
    t.add(1, 2, NOW + 3_600_000, "error", "accepted");
    t.add(1, 3, NOW, "error", "accepted", "", 5);
    t.add(1, 3, NOW, "error", "accepted", "", 0);
    const counts = t.drain();
    expect(t.size).toBe(0);
    expect(counts).toHaveLength(4);
    expect(counts).toContainEqual({
      projectId: 1,
      keyId: 2,
      hour: hourStart(NOW),
      category: "error",
      outcome: "accepted",
      reason: "",
      quantity: 2,
    });
    expect(counts).toContainEqual({
      projectId: 1,
      keyId: 3,
      hour: hourStart(NOW),
      category: "error",
      outcome: "accepted",
      reason: "",
      quantity: 5,
    });
    t.addAll(counts);
    t.addAll(counts);
    expect(t.peek().find((c) => c.keyId === 3)?.quantity).toBe(10);
  });

  test("hours are UTC hour starts", () => {
    expect(hourStart(NOW)).toBe(Date.UTC(2026, 10, 22, 10));
  });
});

describe("parseClientReport (reference §5.5)", () => {
  test("the recorded @sentry/node report", () => {
    const r = parseClientReport(
      {
        timestamp: 1795344019.111,
        discarded_events: [
          { reason: "ratelimit_backoff", category: "error", quantity: 2 },
          { reason: "before_send", category: "error", quantity: 1 },
        ],
      },
      1795344020000,
    );
    expect(r).toEqual({
      at: 1795344019111,
      discards: [
        { category: "error", reason: "ratelimit_backoff", quantity: 2 },
        { category: "error", reason: "before_send", quantity: 1 },
      ],
    });
  });

  test("lenient: bad entries skipped, Relay lists accepted, implausible times replaced by receipt", () => {
    const r = parseClientReport(
      {
        timestamp: "1999-01-01T00:00:00Z",
        discarded_events: [
          { reason: "x y", category: "error", quantity: 1 },
          { reason: "sample_rate", category: "error", quantity: -1 },
          { reason: "sample_rate", category: "error", quantity: "3" },
          { reason: "sample_rate", category: 7, quantity: 3 },
          null,
          { reason: "queue_overflow", category: "session", quantity: 2.6 },
        ],
        rate_limited_events: [{ reason: "key_quota", category: "error", quantity: 4 }],
      },
      NOW,
    );
    expect(r?.at).toBe(NOW);
    expect(r?.discards).toEqual([
      { category: "session", reason: "queue_overflow", quantity: 3 },
      { category: "error", reason: "key_quota", quantity: 4 },
    ]);
    expect(parseClientReport([1], NOW)).toBeUndefined();
    expect(parseClientReport({}, NOW)).toEqual({ at: NOW, discards: [] });
  });
});
