import { describe, expect, test } from "vitest";
import { judgeResponse, nextCheckAt, nextUptimeState, parseUptimeConfig } from "./uptime";

const cfg = (o: Record<string, unknown> = {}) => {
  const c = parseUptimeConfig({ url: "https://example.com/health", ...o });
  if (!c.ok) throw new Error(c.message);
  return c.value;
};

describe("uptime monitors", () => {
  test("config is validated strictly", () => {
    expect(parseUptimeConfig({ url: "ftp://x" })).toMatchObject({ ok: false, field: "url" });
    expect(parseUptimeConfig({ url: "https://x", interval_seconds: 10 })).toMatchObject({ ok: false, field: "interval_seconds" });
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
});
