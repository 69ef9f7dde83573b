import { describe, expect, test } from "vitest";
import {
  importedIssueState,
  importedShortNumber,
  sdkEventFromApi,
  sentryIssueSchema,
  shortIdAlias,
  shortIdCeiling,
  sinceCutoff,
} from "./sentry-issues";

describe("Sentry issues and events for --issues", () => {
  test("--since periods", () => {
    expect(sinceCutoff("30d", 100 * 86_400_000)).toBe(70 * 86_400_000);
    expect(sinceCutoff("12h", 86_400_000)).toBe(43_200_000);
    expect(sinceCutoff("2w", 30 * 86_400_000)).toBe(16 * 86_400_000);
    expect(sinceCutoff("soon", 0)).toBeNull();
    expect(sinceCutoff("-3d", 0)).toBeNull();
  });

  test("status and substatus", () => {
    const of = (status: string, substatus: string | null = null) =>
      importedIssueState(sentryIssueSchema.parse({ id: 1, status, substatus }));
    expect(of("resolved")).toMatchObject({ status: "resolved", resolution: { kind: "now" } });
    expect(of("ignored", "archived_until_escalating")).toMatchObject({ status: "ignored", ignore: { kind: "forever" } });
    expect(of("unresolved", "regressed")).toMatchObject({ status: "unresolved", substatus: "regressed" });
    expect(of("unresolved", "escalating")).toMatchObject({ status: "unresolved", substatus: "ongoing" });
  });

  test("an API event back to the SDK's shape: entries, camelCase frames with context, tags, release object", () => {
    const e = sdkEventFromApi({
      eventID: "ABCDEFABCDEFABCDEFABCDEFABCDEFAB",
      dateCreated: "2026-01-02T03:04:05.000000Z",
      platform: "python",
      tags: [
        { key: "level", value: "warning" },
        { key: "environment", value: "prod" },
        { key: "customer", value: "acme" },
      ],
      release: { version: "1.2.3" },
      entries: [
        {
          type: "exception",
          data: {
            values: [
              {
                type: "KeyError",
                value: "'x'",
                stacktrace: {
                  frames: [
                    {
                      filename: "app.py",
                      function: "run",
                      lineNo: 3,
                      inApp: true,
                      context: [
                        [2, "a"],
                        [3, "b"],
                        [4, "c"],
                      ],
                    },
                  ],
                },
              },
            ],
          },
        },
        { type: "message", data: { formatted: "hello 1", message: "hello %s", params: ["1"] } },
      ],
    });
    expect(e).toMatchObject({
      event_id: "abcdefabcdefabcdefabcdefabcdefab",
      timestamp: "2026-01-02T03:04:05.000000Z",
      level: "warning",
      environment: "prod",
      release: "1.2.3",
      tags: { customer: "acme" },
      logentry: { formatted: "hello 1" },
      exception: {
        values: [
          {
            type: "KeyError",
            stacktrace: {
              frames: [
                {
                  filename: "app.py",
                  function: "run",
                  lineno: 3,
                  in_app: true,
                  pre_context: ["a"],
                  context_line: "b",
                  post_context: ["c"],
                },
              ],
            },
          },
        ],
      },
    });
    expect(sdkEventFromApi({ eventID: "not-an-id" })).toBeNull();
  });

  test("short ids: decimal ones are kept as they read, Sentry's base-32 ones get an alias; the ceiling bounds both", () => {
    expect(importedShortNumber("SHOP-API-1")).toBe(1);
    expect(importedShortNumber("SHOP-API-10")).toBe(10);
    expect(importedShortNumber("SHOP-API-1A")).toBeNull();
    expect(importedShortNumber("SHOP-API-0")).toBeNull();
    expect(importedShortNumber(null)).toBeNull();
    expect(shortIdAlias("SHOP-API-1a")).toBe("1A");
    expect(shortIdAlias("SHOP-API-12")).toBeNull();
    // Sentry's base 32: A is 10, 1A is 42; its I, L and O are read as 1, 1 and 0.
    expect(shortIdCeiling("SHOP-API-A")).toBe(10);
    expect(shortIdCeiling("SHOP-API-1A")).toBe(42);
    expect(shortIdCeiling("SHOP-API-19")).toBe(19);
    expect(shortIdCeiling("nothing")).toBe(0);
  });
});
