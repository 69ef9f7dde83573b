import { describe, expect, test } from "vitest";
import { importedIssueState, sdkEventFromApi, sentryIssueSchema, sinceCutoff } from "./sentry-issues";

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
});
