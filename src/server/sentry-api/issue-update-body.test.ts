import { describe, expect, test } from "vitest";
import { sentryIssueUpdateBody } from "./issue-update-body";

describe("sentryIssueUpdateBody", () => {
  test("sentry-cli's bodies: null snoozeDuration dropped, muted means ignored", () => {
    expect(sentryIssueUpdateBody({ status: "resolved", snoozeDuration: null })).toEqual({ status: "resolved" });
    expect(sentryIssueUpdateBody({ status: "unresolved", snoozeDuration: null })).toEqual({ status: "unresolved" });
    expect(sentryIssueUpdateBody({ status: "muted", snoozeDuration: null })).toEqual({ status: "ignored" });
  });

  test("snooze fields become ignore conditions, only when ignoring", () => {
    expect(sentryIssueUpdateBody({ status: "ignored", snoozeDuration: 30 })).toEqual({
      status: "ignored",
      statusDetails: { ignoreDuration: 30 },
    });
    expect(sentryIssueUpdateBody({ status: "muted", snoozeCount: 10, snoozeWindow: 60 })).toEqual({
      status: "ignored",
      statusDetails: { ignoreCount: 10, ignoreWindow: 60 },
    });
    expect(sentryIssueUpdateBody({ status: "resolved", snoozeCount: 10 })).toEqual({ status: "resolved" });
  });

  test("unknown keys and nulls are dropped; statusDetails wins over top-level aliases", () => {
    expect(
      sentryIssueUpdateBody({
        status: "ignored",
        isBookmarked: true,
        hasSeen: true,
        priority: "high",
        statusDetails: { ignoreCount: 5, inCommit: null, actor: { id: 1 } },
        ignoreCount: 7,
      }),
    ).toEqual({ status: "ignored", statusDetails: { ignoreCount: 5 } });
    expect(sentryIssueUpdateBody({ status: null, assignedTo: "me@example.com" })).toEqual({ assignedTo: "me@example.com" });
  });

  test("non-objects pass through for the strict parser to reject", () => {
    expect(sentryIssueUpdateBody([1])).toEqual([1]);
    expect(sentryIssueUpdateBody("x")).toBe("x");
  });
});
