import { describe, expect, test } from "vitest";
import { AppError } from "../errors";
import { parseIgnoreCondition, parseIssueUpdate, parseResolution, statusDetailsOf } from "./update-input";

const NOW = Date.UTC(2026, 0, 1);

function fieldsOf(input: unknown): string[] {
  try {
    parseIssueUpdate(input, NOW);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe("validation_failed");
    return ((e as AppError).fields ?? []).map((f) => f.field);
  }
  throw new Error("expected validation_failed");
}

describe("parseIssueUpdate (Sentry's body)", () => {
  test.each([
    [{ status: "resolved" }, { status: { op: "resolve", resolution: { kind: "now" } } }],
    [{ status: "resolved", statusDetails: {} }, { status: { op: "resolve", resolution: { kind: "now" } } }],
    [
      { status: "resolved", statusDetails: { inRelease: "1.2" } },
      { status: { op: "resolve", resolution: { kind: "in_release", release: "1.2" } } },
    ],
    [
      { status: "resolved", statusDetails: { inNextRelease: true } },
      { status: { op: "resolve", resolution: { kind: "in_next_release" } } },
    ],
    [{ status: "resolvedInNextRelease" }, { status: { op: "resolve", resolution: { kind: "in_next_release" } } }],
    [{ status: "unresolved", substatus: "ongoing" }, { status: { op: "unresolve" } }],
    // Undo names the substatus the issue had before the resolve.
    [{ status: "unresolved", substatus: "new" }, { status: { op: "unresolve", substatus: "new" } }],
    [{ status: "ignored" }, { status: { op: "ignore", condition: { kind: "forever" } } }],
    [
      { status: "ignored", statusDetails: { ignoreDuration: 30 } },
      { status: { op: "ignore", condition: { kind: "until_time", until: NOW + 30 * 60_000 } } },
    ],
    [
      { status: "ignored", statusDetails: { ignoreUntil: "2027-01-01T00:00:00Z" } },
      { status: { op: "ignore", condition: { kind: "until_time", until: Date.UTC(2027, 0, 1) } } },
    ],
    [
      { status: "ignored", statusDetails: { ignoreCount: 100 } },
      { status: { op: "ignore", condition: { kind: "until_events", count: 100, windowMinutes: null } } },
    ],
    [
      { status: "ignored", statusDetails: { ignoreCount: 100, ignoreWindow: 60 } },
      { status: { op: "ignore", condition: { kind: "until_events", count: 100, windowMinutes: 60 } } },
    ],
    [
      { status: "ignored", statusDetails: { ignoreUserCount: 5, ignoreUserWindow: 1440 } },
      { status: { op: "ignore", condition: { kind: "until_users", count: 5, windowMinutes: 1440 } } },
    ],
    [{ assignedTo: "dev@example.com" }, { assignedTo: "dev@example.com" }],
    [{ assignedTo: "" }, { assignedTo: null }],
    [
      { assignedTo: null, status: "unresolved" },
      { assignedTo: null, status: { op: "unresolve" } },
    ],
  ])("%j", (input, expected) => {
    expect(parseIssueUpdate(input, NOW)).toEqual(expected);
  });

  test.each([
    [{}, ["body"]],
    [{ status: "open" }, ["status"]],
    [{ status: "resolved", extra: 1 }, ["input"]],
    [{ statusDetails: { inRelease: "1" } }, ["statusDetails"]],
    [{ status: "resolved", statusDetails: { inRelease: "1", inNextRelease: true } }, ["statusDetails"]],
    [{ status: "resolved", statusDetails: { ignoreCount: 1 } }, ["statusDetails.ignoreCount"]],
    [{ status: "ignored", statusDetails: { inRelease: "1" } }, ["statusDetails.inRelease"]],
    [{ status: "ignored", statusDetails: { ignoreCount: 0 } }, ["statusDetails.ignoreCount"]],
    [{ status: "ignored", statusDetails: { ignoreCount: 1.5 } }, ["statusDetails.ignoreCount"]],
    [{ status: "ignored", statusDetails: { ignoreWindow: 5 } }, ["statusDetails.ignoreWindow"]],
    [{ status: "ignored", statusDetails: { ignoreCount: 5, ignoreUserCount: 5 } }, ["statusDetails"]],
    [{ status: "ignored", statusDetails: { ignoreUntil: "2020-01-01T00:00:00Z" } }, ["statusDetails.ignoreUntil"]],
    [{ status: "ignored", statusDetails: { ignoreUntil: "tomorrow" } }, ["statusDetails.ignoreUntil"]],
    [{ status: "ignored", statusDetails: { bogus: true } }, ["statusDetails"]],
    [{ status: "unresolved", statusDetails: { inNextRelease: true } }, ["statusDetails"]],
    [{ status: "resolved", statusDetails: { inRelease: "" } }, ["statusDetails.inRelease"]],
  ])("%j → validation_failed on %j", (input, fields) => {
    expect(fieldsOf(input)).toEqual(fields);
  });
});

describe("statusDetails and stored JSON", () => {
  test("statusDetails per state", () => {
    expect(
      statusDetailsOf({ status: "resolved", resolution: { kind: "in_release", release: "1.2", releaseOrder: 1 }, ignore: null }),
    ).toEqual({ inRelease: "1.2" });
    expect(
      statusDetailsOf({ status: "resolved", resolution: { kind: "in_next_release", release: null, releaseOrder: null }, ignore: null }),
    ).toEqual({ inNextRelease: true });
    expect(
      statusDetailsOf({
        status: "ignored",
        resolution: null,
        ignore: { kind: "until_events", count: 5, windowMinutes: 60, baseline: 1, since: 2 },
      }),
    ).toEqual({
      ignoreCount: 5,
      ignoreWindow: 60,
    });
    expect(statusDetailsOf({ status: "ignored", resolution: null, ignore: { kind: "until_time", until: NOW } })).toEqual({
      ignoreUntil: new Date(NOW).toISOString(),
    });
    expect(statusDetailsOf({ status: "unresolved", resolution: null, ignore: null })).toEqual({});
  });

  test("damaged JSON reads as null, never throws", () => {
    expect(parseResolution(null)).toBeNull();
    expect(parseResolution({ kind: "in_release" })).toBeNull();
    expect(parseIgnoreCondition({ kind: "until_users", count: "x" })).toBeNull();
    expect(parseIgnoreCondition({ kind: "until_users", count: 3 })).toEqual({
      kind: "until_users",
      count: 3,
      windowMinutes: null,
      baseline: 0,
      since: 0,
    });
  });
});
