import { describe, expect, test } from "vitest";
import { dueAt, eventNeedsWork, ignore, needsReleaseOrder, onEvent, onTick, resolve, unresolve, windowSince } from "./transitions";
import { DEFAULT_LIFECYCLE, type IssueState, type LifecycleEvent } from "./types";

const DAY = 24 * 3600 * 1000;
const T0 = Date.UTC(2026, 0, 1);
const cfg = DEFAULT_LIFECYCLE;

const fresh = (over: Partial<IssueState> = {}): IssueState => ({
  status: "unresolved",
  substatus: "new",
  firstSeen: T0,
  statusChangedAt: null,
  resolvedAt: null,
  resolution: null,
  ignore: null,
  eventCount: 10,
  userCount: 3,
  ...over,
});

const ev = (at: number, release: string | null = null, extra: Partial<LifecycleEvent> = {}): LifecycleEvent => ({
  receivedAt: at,
  release,
  ...extra,
});

/** Counts one more event (and optionally user), as the digest does before onEvent. */
const counted = (s: IssueState, users = 0): IssueState => ({ ...s, eventCount: s.eventCount + 1, userCount: s.userCount + users });

describe("resolve", () => {
  test("now: any later event regresses, with a regression activity by Errata", () => {
    const r = resolve(fresh(), { kind: "now" }, "u1", T0 + 10);
    expect(r.state).toMatchObject({ status: "resolved", substatus: "resolved", resolvedAt: T0 + 10, resolution: { kind: "now" } });
    expect(r.activities).toEqual([
      {
        kind: "state_change",
        actorUserId: "u1",
        data: {
          from: { status: "unresolved", substatus: "new" },
          to: { status: "resolved", substatus: "resolved" },
          resolution: { kind: "now" },
        },
      },
    ]);
    const e = onEvent(counted(r.state), ev(T0 + 20), T0 + 20, cfg);
    expect(e.changed).toBe(true);
    expect(e.state).toMatchObject({
      status: "unresolved",
      substatus: "regressed",
      resolution: null,
      resolvedAt: null,
      statusChangedAt: T0 + 20,
    });
    expect(e.activities).toEqual([{ kind: "regression", actorUserId: null, data: { release: null, resolution: { kind: "now" } } }]);
  });

  test("an event received before the resolution (queued) does not regress it", () => {
    const r = resolve(fresh(), { kind: "now" }, "u1", T0 + 10);
    expect(onEvent(counted(r.state), ev(T0 + 9), T0 + 30, cfg).changed).toBe(false);
  });

  test.each([
    ["1.1.0", false],
    ["1.2.0", false],
    ["1.2.1", true],
    ["1.3.0", true],
    ["1.2.0-rc.1", false],
    [null, false],
  ])("in release 1.2.0, event from %s → regressed: %s", (release, regressed) => {
    const r = resolve(fresh(), { kind: "in_release", release: "1.2.0", releaseOrder: 100 }, "u1", T0);
    const e = onEvent(counted(r.state), ev(T0 + 1, release, { releaseOrder: 50 }), T0 + 1, cfg);
    expect(e.state.status).toBe(regressed ? "unresolved" : "resolved");
    expect(e.changed).toBe(regressed);
  });

  test("in release 1.9.0: 1.10.0 regresses (numeric, not lexical)", () => {
    const r = resolve(fresh(), { kind: "in_release", release: "1.9.0" }, "u1", T0);
    expect(onEvent(counted(r.state), ev(T0 + 1, "1.10.0"), T0 + 1, cfg).state.substatus).toBe("regressed");
  });

  test("non-semver releases: ordered by creation time", () => {
    const r = resolve(fresh(), { kind: "in_release", release: "abc123", releaseOrder: 100 }, "u1", T0);
    expect(needsReleaseOrder(r.state, "def456")).toBe(true);
    expect(needsReleaseOrder(r.state, "abc123")).toBe(false);
    expect(onEvent(counted(r.state), ev(T0 + 1, "def456", { releaseOrder: 99 }), T0 + 1, cfg).changed).toBe(false);
    expect(onEvent(counted(r.state), ev(T0 + 1, "def456", { releaseOrder: 101 }), T0 + 1, cfg).state.substatus).toBe("regressed");
  });

  test("in next release: baseline is the latest release at resolve time; only newer ones regress", () => {
    const r = resolve(fresh(), { kind: "in_next_release", release: "2.0.0", releaseOrder: 10 }, "u1", T0);
    expect(r.state.resolution).toEqual({ kind: "in_next_release", release: "2.0.0", releaseOrder: 10 });
    expect(onEvent(counted(r.state), ev(T0 + 1, "2.0.0"), T0 + 1, cfg).changed).toBe(false);
    expect(onEvent(counted(r.state), ev(T0 + 1, "1.9.0"), T0 + 1, cfg).changed).toBe(false);
    expect(onEvent(counted(r.state), ev(T0 + 1, "2.0.1"), T0 + 1, cfg).state.substatus).toBe("regressed");
  });

  test("in next release without any release: a named release regresses, no release does not", () => {
    const r = resolve(fresh(), { kind: "in_next_release" }, "u1", T0);
    expect(onEvent(counted(r.state), ev(T0 + 1, null), T0 + 1, cfg).changed).toBe(false);
    expect(onEvent(counted(r.state), ev(T0 + 1, "1.0.0"), T0 + 1, cfg).changed).toBe(true);
  });

  test("resolving again the same way changes nothing; another way does", () => {
    const r = resolve(fresh(), { kind: "now" }, "u1", T0);
    expect(resolve(r.state, { kind: "now" }, "u1", T0 + 5).changed).toBe(false);
    expect(resolve(r.state, { kind: "in_release", release: "1.0.0" }, "u1", T0 + 5).changed).toBe(true);
  });
});

describe("ignore", () => {
  test("forever: events never unignore", () => {
    const r = ignore(fresh(), { kind: "forever" }, "u1", T0);
    expect(r.state).toMatchObject({ status: "ignored", substatus: "archived_forever", ignore: { kind: "forever" } });
    expect(eventNeedsWork(r.state, T0, cfg)).toBe(true);
    expect(onEvent(counted(r.state), ev(T0 + 999 * DAY), T0 + 999 * DAY, cfg).changed).toBe(false);
    expect(onTick(r.state, T0 + 999 * DAY, cfg).changed).toBe(false);
    expect(dueAt(r.state, cfg)).toBeNull();
  });

  test("until a time: unignored by the tick or by an event after the time", () => {
    const r = ignore(fresh(), { kind: "until_time", until: T0 + 1000 }, "u1", T0);
    expect(r.state.substatus).toBe("archived_until_condition_met");
    expect(dueAt(r.state, cfg)).toBe(T0 + 1000);
    expect(onTick(r.state, T0 + 999, cfg).changed).toBe(false);
    expect(onEvent(counted(r.state), ev(T0 + 999), T0 + 999, cfg).changed).toBe(false);
    const tick = onTick(r.state, T0 + 1000, cfg);
    expect(tick.state).toMatchObject({ status: "unresolved", substatus: "ongoing", ignore: null });
    expect(tick.activities).toEqual([
      { kind: "unignored", actorUserId: null, data: { reason: "time", ignore: { kind: "until_time", until: T0 + 1000 } } },
    ]);
    expect(onEvent(counted(r.state), ev(T0 + 1001), T0 + 1001, cfg).activities[0]?.kind).toBe("unignored");
  });

  test("until N more events: counted from the ignore (baseline), unignored at the Nth", () => {
    let s = ignore(fresh({ eventCount: 10 }), { kind: "until_events", count: 3 }, "u1", T0).state;
    expect(s.ignore).toEqual({ kind: "until_events", count: 3, windowMinutes: null, baseline: 10, since: T0 });
    for (let i = 1; i <= 2; i++) {
      s = counted(s);
      const t = onEvent(s, ev(T0 + i), T0 + i, cfg);
      expect(t.changed).toBe(false);
    }
    const t = onEvent(counted(s), ev(T0 + 3), T0 + 3, cfg);
    expect(t.state.status).toBe("unresolved");
    expect(t.activities.map((a) => [a.kind, a.data.reason])).toEqual([["unignored", "events"]]);
  });

  test("until N more users: only new users count", () => {
    let s = ignore(fresh({ userCount: 3 }), { kind: "until_users", count: 2 }, "u1", T0).state;
    s = counted(s, 0);
    expect(onEvent(s, ev(T0 + 1), T0 + 1, cfg).changed).toBe(false);
    s = counted(s, 1);
    expect(onEvent(s, ev(T0 + 2), T0 + 2, cfg).changed).toBe(false);
    s = counted(s, 1);
    expect(onEvent(s, ev(T0 + 3), T0 + 3, cfg).activities[0]?.data.reason).toBe("users");
  });

  test("windowed: uses the window counts from the digest; window starts no earlier than the ignore", () => {
    const s = ignore(fresh(), { kind: "until_users", count: 5, windowMinutes: 60 }, "u1", T0).state;
    expect(windowSince(s, T0 + 10 * 60_000)).toBe(T0);
    expect(windowSince(s, T0 + 120 * 60_000)).toBe(T0 + 60 * 60_000);
    expect(onEvent(counted(s, 1), ev(T0 + 1, null, { windowCounts: { events: 50, users: 4 } }), T0 + 1, cfg).changed).toBe(false);
    expect(onEvent(counted(s, 1), ev(T0 + 1, null, { windowCounts: { events: 50, users: 5 } }), T0 + 1, cfg).changed).toBe(true);
    // Without counts a windowed condition is never met by guesswork.
    expect(onEvent(counted(s, 100), ev(T0 + 1), T0 + 1, cfg).changed).toBe(false);
    expect(windowSince(fresh(), T0)).toBeUndefined();
  });
});

describe("age and unresolve", () => {
  test("new → ongoing after 7 days (tick or event), recorded as a system state change", () => {
    const s = fresh();
    expect(eventNeedsWork(s, T0 + 7 * DAY - 1, cfg)).toBe(false);
    expect(onTick(s, T0 + 7 * DAY - 1, cfg).changed).toBe(false);
    const t = onTick(s, T0 + 7 * DAY, cfg);
    expect(t.state.substatus).toBe("ongoing");
    expect(t.activities[0]).toMatchObject({
      kind: "state_change",
      actorUserId: null,
      data: { reason: "age", to: { substatus: "ongoing" } },
    });
    expect(onEvent(counted(s), ev(T0 + 8 * DAY), T0 + 8 * DAY, cfg).state.substatus).toBe("ongoing");
    expect(dueAt(t.state, cfg)).toBeNull();
  });

  test("regressed → ongoing 7 days after the regression", () => {
    const regressed = onEvent(counted(resolve(fresh(), { kind: "now" }, null, T0).state), ev(T0 + DAY), T0 + DAY, cfg).state;
    expect(dueAt(regressed, cfg)).toBe(T0 + 8 * DAY);
    expect(onTick(regressed, T0 + 8 * DAY, cfg).state.substatus).toBe("ongoing");
  });

  test("unresolve: resolved/ignored → unresolved/ongoing; unresolved stays", () => {
    const r = resolve(fresh(), { kind: "now" }, "u1", T0);
    const u = unresolve(r.state, "u2", T0 + 5);
    expect(u.state).toMatchObject({ status: "unresolved", substatus: "ongoing", resolution: null, resolvedAt: null });
    expect(u.activities[0]).toMatchObject({ kind: "state_change", actorUserId: "u2" });
    expect(unresolve(fresh(), "u2", T0).changed).toBe(false);
    const i = ignore(fresh(), { kind: "forever" }, "u1", T0);
    expect(unresolve(i.state, "u2", T0).state.ignore).toBeNull();
  });

  test("the digest fast path: unresolved issues that are not due need no work", () => {
    expect(eventNeedsWork(fresh({ substatus: "ongoing" }), T0 + 99 * DAY, cfg)).toBe(false);
    expect(eventNeedsWork(fresh(), T0, cfg)).toBe(false);
    expect(eventNeedsWork(resolve(fresh(), { kind: "now" }, null, T0).state, T0, cfg)).toBe(true);
  });
});

describe("unresolve back to a named substatus (Undo)", () => {
  test("a new issue resolved and undone is new again, still due to age from its first event", () => {
    const r = resolve(fresh(), { kind: "now" }, "u1", T0 + 10);
    const back = unresolve(r.state, "u1", T0 + 20, "new");
    expect(back.state).toMatchObject({ status: "unresolved", substatus: "new", resolution: null });
    expect(dueAt(back.state, cfg)).toBe(T0 + cfg.ongoingAfterMs);
    expect(unresolve(r.state, "u1", T0 + 20).state.substatus).toBe("ongoing");
  });
});
