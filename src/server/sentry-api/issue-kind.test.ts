import { describe, expect, test } from "vitest";
import { sentryIssueKind, sentryPriority } from "./issue-kind";

describe("Sentry's issue classification", () => {
  test("event-made issues are errors; Errata's own issues keep Sentry's grouptype", () => {
    expect(sentryIssueKind("error")).toEqual({ issueType: "error", issueCategory: "error" });
    expect(sentryIssueKind("default")).toEqual({ issueType: "error", issueCategory: "error" });
    expect(sentryIssueKind("monitor_check_in_failure")).toEqual({ issueType: "monitor_check_in_failure", issueCategory: "cron" });
    expect(sentryIssueKind("uptime_domain_failure")).toEqual({ issueType: "uptime_domain_failure", issueCategory: "uptime" });
  });
  test("priority from the level, as Sentry without a severity score", () => {
    expect(["fatal", "error", "warning", "info", "debug"].map(sentryPriority)).toEqual(["high", "high", "medium", "low", "low"]);
  });
});
