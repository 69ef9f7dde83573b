import { describe, expect, test } from "vitest";
import { judgeResponse, latencySlots, nextCheckAt, nextUptimeState, parseHeaderLines, parseUptimeConfig } from "./uptime";

const cfg = (o: Record<string, unknown> = {}) => {
  const c = parseUptimeConfig({ url: "https://example.com/health", ...o });
  if (!c.ok) throw new Error(c.message);
  return c.value;
};

describe("uptime monitors", () => {
  test("config is validated strictly", () => {
    expect(parseUptimeConfig({ url: "ftp://x" })).toMatchObject({ ok: false, field: "url" });
    expect(parseUptimeConfig({ url: "https://x", intervalSeconds: 10 })).toMatchObject({ ok: false, field: "intervalSeconds" });
    expect(parseUptimeConfig({ url: "https://x", headers: { "x-a": "1\r\nInjected: 1" } })).toMatchObject({ ok: false, field: "headers" });
    expect(cfg()).toMatchObject({ method: "GET", intervalS: 60, statusMin: 200, statusMax: 399 });
  });

  test("responses: status range and keyword decide", () => {
    const c = cfg({ keyword: "healthy" });
    expect(judgeResponse(c, { status: 200, body: "all healthy" }).up).toBe(true);
    expect(judgeResponse(c, { status: 200, body: "degraded" })).toEqual({ up: false, reason: 'keyword "healthy" not found' });
    expect(judgeResponse(c, { status: 503, body: "healthy" }).up).toBe(false);
    expect(judgeResponse(c, { error: "timeout" })).toEqual({ up: false, reason: "timeout" });
  });

  test("down after N failures, up after M successes", () => {
    const c = cfg({ failure_threshold: 2, recovery_threshold: 2 });
    let s = nextUptimeState(c, { state: "up", failures: 0, successes: 3 }, false);
    expect(s.changed).toBeNull();
    s = nextUptimeState(c, s, false);
    expect(s).toMatchObject({ state: "down", changed: "down" });
    s = nextUptimeState(c, s, true);
    expect(s).toMatchObject({ state: "down", changed: null });
    s = nextUptimeState(c, s, true);
    expect(s).toMatchObject({ state: "up", changed: "up" });
  });

  test("checks are spread over the interval by id", () => {
    const now = 1_000_000_000;
    const phases = new Set(Array.from({ length: 500 }, (_, i) => nextCheckAt(i + 1, 60, now) % 60_000));
    expect(phases.size).toBeGreaterThan(450);
    for (let id = 1; id < 50; id++) {
      const t = nextCheckAt(id, 60, now);
      expect(t).toBeGreaterThan(now);
      expect(t - now).toBeLessThanOrEqual(60_000);
    }
  });

  test("header lines: Name: value per line, blank lines skipped, the bad line named", () => {
    expect(parseHeaderLines("Authorization: Bearer a:b\n\n  X-Env :  prod \r\n")).toEqual({
      ok: true,
      value: { Authorization: "Bearer a:b", "X-Env": "prod" },
    });
    expect(parseHeaderLines("")).toEqual({ ok: true, value: {} });
    expect(parseHeaderLines("X-A: 1\nno colon here")).toEqual({ ok: false, field: "headers", message: 'line 2: expected "Name: value"' });
    expect(parseHeaderLines(": value")).toMatchObject({ ok: false });
  });

  test("latency slots: one per check while they fit, else equal stretches of time with their failures", () => {
    const r = (t: number, up: boolean, ms: number | null) => ({ checkedAt: t, up, latencyMs: ms });
    expect(latencySlots([])).toEqual([]);
    expect(latencySlots([r(2000, false, 5), r(1000, true, 20)])).toEqual([
      { from: 1000, to: 1000, checks: 1, failures: 0, avgMs: 20, maxMs: 20 },
      { from: 2000, to: 2000, checks: 1, failures: 1, avgMs: 5, maxMs: 5 },
    ]);
    // 10 checks into 4 slots over 0..9000: 0-2250 (3), 2250-4500 (2: 3000, 4000), 4500-6750 (2), 6750-9000 (3).
    const many = Array.from({ length: 10 }, (_, i) => r(i * 1000, i !== 4, i === 5 ? null : 10 * (i + 1)));
    const slots = latencySlots(many, 4);
    expect(slots.map((s) => s.checks)).toEqual([3, 2, 2, 3]);
    expect(slots.map((s) => s.failures)).toEqual([0, 1, 0, 0]);
    expect(slots[0]).toMatchObject({ avgMs: 20, maxMs: 30 });
    expect(slots[2]).toMatchObject({ avgMs: 70, maxMs: 70 });
    expect(slots.reduce((n, s) => n + s.checks, 0)).toBe(10);
  });
});
