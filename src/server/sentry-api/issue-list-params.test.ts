import { describe, expect, test } from "vitest";
import { sentryIssueListParams, statsPeriodMs } from "./issue-list-params";

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const parse = (qs: string, level: "org" | "project" = "org") => sentryIssueListParams(new URLSearchParams(qs), NOW, "is:unresolved", level);

describe("Sentry's issue-list parameters", () => {
  test("projects: repeatable numeric ids, -1 or none for all; junk refused", () => {
    expect(parse("").projectIds).toBeNull();
    expect(parse("project=-1&project=3").projectIds).toBeNull();
    expect(parse("project=3&project=5").projectIds).toEqual([3, 5]);
    expect(() => parse("project=web")).toThrow(/project/);
  });

  test("query: default is:unresolved, issue.category rewritten to issue kinds and judged", () => {
    expect(parse("").query).toBe("is:unresolved");
    expect(parse("query=").query).toBe("");
    const judged = parse("query=is:unresolved issue.category:error boom");
    // Errors are every issue but cron and uptime failures.
    expect(judged.query.split(/\s+/)).toEqual(["is:unresolved", "!issue.type:[monitor_check_in_failure,uptime_domain_failure]", "boom"]);
    expect(judged.categoryMatches).toBe(true);
    expect(judged.feedback).toBe(false);
    const feedback = parse("query=issue.category:feedback");
    expect(feedback.categoryMatches).toBe(false);
    expect(feedback.feedback).toBe(true);
    expect(parse("query=issue.category:[error,feedback]")).toMatchObject({ categoryMatches: true, feedback: false });
    expect(parse("query=!issue.category:error").query).toBe("issue.type:[monitor_check_in_failure,uptime_domain_failure]");
    expect(parse("query=issue.category:cron").query).toBe("issue.type:[monitor_check_in_failure]");
    expect(parse("query=!issue.category:feedback")).toMatchObject({ query: "", categoryMatches: true, feedback: false });
    expect(parse("query=issue.category:performance").categoryMatches).toBe(false);
  });

  test("window: statsPeriod or start+end on the org list; the series on the project list", () => {
    expect(parse("statsPeriod=24h").range).toEqual({ start: NOW - 86_400_000, end: NOW });
    expect(parse("start=2026-01-01T00:00:00&end=2026-01-02T00:00:00").range).toEqual({
      start: Date.UTC(2026, 0, 1),
      end: Date.UTC(2026, 0, 2),
    });
    expect(() => parse("start=2026-01-01")).toThrow(/start and end/);
    // One series, as Sentry answers: the one asked for, 24h when none is.
    expect(parse("statsPeriod=24h", "project")).toMatchObject({ range: null, stats: { key: "24h", series: "24h" } });
    expect(parse("statsPeriod=14d", "project").stats).toEqual({ key: "14d", series: "14d" });
    expect(parse("", "project").stats).toEqual({ key: "24h", series: "24h" });
    expect(parse("statsPeriod=", "project").stats).toBeNull();
    expect(parse("groupStatsPeriod=").stats).toBeNull();
    expect(parse("").stats).toEqual({ key: "24h", series: "24h" });
    expect(parse("groupStatsPeriod=auto&statsPeriod=24h").stats).toEqual({ key: "auto", series: "24h" });
    expect(parse("groupStatsPeriod=auto&statsPeriod=14d").stats).toEqual({ key: "auto", series: "14d" });
    expect(() => parse("groupStatsPeriod=1y")).toThrow(/groupStatsPeriod/);
    expect(statsPeriodMs("14d")).toBe(14 * 86_400_000);
    expect(() => statsPeriodMs("soon")).toThrow();
  });

  test("sort, limit, cursor, environments, shortIdLookup", () => {
    expect(parse("sort=new").sort).toBe("new");
    expect(parse("sort=priority").sort).toBe("date");
    expect(() => parse("sort=bogus")).toThrow(/sort/);
    expect(parse("limit=500").limit).toBe(100);
    expect(() => parse("limit=0")).toThrow(/limit/);
    expect(parse("cursor=abc&environment=prod&environment=&environment=staging&shortIdLookup=1")).toMatchObject({
      cursor: "abc",
      environments: ["prod", "staging"],
      shortIdLookup: true,
    });
  });
});
