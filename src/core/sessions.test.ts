import { describe, expect, test } from "vitest";
import {
  applySessionUpdate,
  classifySession,
  parseSessionAggregates,
  parseSessionUpdate,
  type SessionClass,
  type SessionUpdate,
} from "./sessions";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0);
const iso = (ms: number) => new Date(ms).toISOString();

function update(over: Partial<SessionUpdate> = {}): SessionUpdate {
  return { sid: "s1", did: null, init: true, started: NOW, status: "ok", errors: 0, release: "app@1", environment: "prod", ...over };
}

/** Replays updates like the worker does and returns the final counts. */
function replay(updates: SessionUpdate[]): Record<string, number> {
  const state = new Map<string, SessionClass>();
  const totals: Record<string, number> = { total: 0, ok: 0, errored: 0, unhandled: 0, abnormal: 0, crashed: 0 };
  for (const u of updates) {
    const change = applySessionUpdate(u.sid ? state.get(u.sid) : undefined, u);
    if (!change) continue;
    if (u.sid) state.set(u.sid, change.next);
    for (const [k, v] of Object.entries(change.delta)) totals[k] += v;
  }
  return totals;
}

describe("parseSessionUpdate (reference §9)", () => {
  test("the captured @sentry/node init update", () => {
    const r = parseSessionUpdate(
      {
        sid: "a47dead9-0000-4000-8000-000000000001",
        init: true,
        started: iso(NOW - 57),
        timestamp: iso(NOW),
        status: "ok",
        errors: 1,
        duration: 0.057,
        attrs: { release: "myapp@1.0.0", environment: "test" },
      },
      NOW,
    );
    expect(r).toEqual({
      ok: true,
      value: {
        sid: "a47dead9-0000-4000-8000-000000000001".replace(/-/g, ""),
        did: null,
        init: true,
        started: NOW - 57,
        status: "ok",
        errors: 1,
        release: "myapp@1.0.0",
        environment: "test",
      },
    });
  });

  test("release is required; start time must be a time; older than 5 days is too old; the future is clamped", () => {
    expect(parseSessionUpdate({ started: iso(NOW), attrs: {} }, NOW)).toEqual({ ok: false, reason: "missing_release" });
    expect(parseSessionUpdate({ started: iso(NOW) }, NOW)).toEqual({ ok: false, reason: "missing_release" });
    expect(parseSessionUpdate({ started: "soon", attrs: { release: "a" } }, NOW)).toEqual({ ok: false, reason: "invalid_timestamp" });
    expect(parseSessionUpdate({ started: iso(NOW - 6 * 86_400_000), attrs: { release: "a" } }, NOW)).toEqual({
      ok: false,
      reason: "too_old",
    });
    const future = parseSessionUpdate({ started: iso(NOW + 10 * 86_400_000), attrs: { release: "a" } }, NOW);
    expect(future.ok && future.value.started).toBe(NOW);
    expect(parseSessionUpdate("x", NOW)).toEqual({ ok: false, reason: "invalid_json" });
    const unix = parseSessionUpdate({ started: NOW / 1000, attrs: { release: "a" }, did: 42 }, NOW);
    expect(unix.ok && unix.value).toMatchObject({ started: NOW, did: "42", environment: "", sid: null });
  });
});

describe("status classes and idempotent counting", () => {
  test("classes: crashed > abnormal > unhandled > errored > ok", () => {
    expect(classifySession({ status: "ok", errors: 0 })).toBe("ok");
    expect(classifySession({ status: "exited", errors: 0 })).toBe("ok");
    expect(classifySession({ status: "exited", errors: 2 })).toBe("errored");
    expect(classifySession({ status: "unhandled", errors: 1 })).toBe("unhandled");
    expect(classifySession({ status: "abnormal", errors: 0 })).toBe("abnormal");
    expect(classifySession({ status: "crashed", errors: 1 })).toBe("crashed");
  });

  test("init counted once, however often it is re-sent; the session moves to worse classes only", () => {
    const totals = replay([
      update(),
      update(),
      update({ init: false, errors: 1 }),
      update({ init: false, status: "exited", errors: 1 }),
      update({ init: false, status: "exited", errors: 0 }),
    ]);
    expect(totals).toEqual({ total: 1, ok: 0, errored: 1, unhandled: 0, abnormal: 0, crashed: 0 });
  });

  test("several sessions: the columns always add up to the total", () => {
    const totals = replay([
      update({ sid: "a" }),
      update({ sid: "a", init: false, status: "exited" }),
      update({ sid: "b" }),
      update({ sid: "b", init: false, status: "crashed", errors: 1 }),
      update({ sid: "c", init: false, status: "abnormal" }),
      update({ sid: "d", status: "unhandled", errors: 1 }),
      update({ sid: null, init: false, status: "exited" }),
    ]);
    expect(totals).toEqual({ total: 5, ok: 2, errored: 0, unhandled: 1, abnormal: 1, crashed: 1 });
  });
});

describe("parseSessionAggregates", () => {
  test("request-mode buckets: exited is ok, the rest by name; empty or old buckets skipped", () => {
    const r = parseSessionAggregates(
      {
        aggregates: [
          { started: iso(NOW), exited: 10, errored: 2, crashed: 1 },
          { started: iso(NOW - 60_000), did: "u1", abnormal: 1 },
          { started: iso(NOW), exited: 0 },
          { started: iso(NOW - 7 * 86_400_000), exited: 5 },
          "junk",
        ],
        attrs: { release: "api@2", environment: "staging" },
      },
      NOW,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.release).toBe("api@2");
    expect(r.value.skipped).toBe(3);
    expect(r.value.buckets).toEqual([
      { started: NOW, did: null, delta: { total: 13, ok: 10, errored: 2, unhandled: 0, abnormal: 0, crashed: 1 } },
      { started: NOW - 60_000, did: "u1", delta: { total: 1, ok: 0, errored: 0, unhandled: 0, abnormal: 1, crashed: 0 } },
    ]);
    expect(parseSessionAggregates({ aggregates: "x", attrs: { release: "a" } }, NOW)).toEqual({ ok: false, reason: "invalid_session" });
  });
});
