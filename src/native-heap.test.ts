import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { startQuietTrim } from "./native-heap";

describe("quiet trim", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test("trims once after a whole quiet interval following activity, not while busy, never when always idle", () => {
    let busy = false;
    const collect = vi.fn();
    const quiet = startQuietTrim({ quietMs: 1000, busy: () => busy, collect });
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled(); // idle from the start: nothing to give back

    quiet.touch();
    vi.advanceTimersByTime(1000); // the check sees the activity
    expect(collect).not.toHaveBeenCalled();
    quiet.touch(); // still busy during the next interval
    vi.advanceTimersByTime(1000);
    expect(collect).not.toHaveBeenCalled();

    busy = true; // ingest quiet, but the digest helpers are still draining
    vi.advanceTimersByTime(3000);
    expect(collect).not.toHaveBeenCalled();
    busy = false;
    vi.advanceTimersByTime(1000);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(1); // one trim per quiet spell

    quiet.touch();
    vi.advanceTimersByTime(2000);
    expect(collect).toHaveBeenCalledTimes(2);
    quiet.stop();
    quiet.touch();
    vi.advanceTimersByTime(5000);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  test("a trickle of activity trims at most once per minGapMs", () => {
    const collect = vi.fn();
    const quiet = startQuietTrim({ quietMs: 1000, minGapMs: 60_000, collect });
    // An event every 3 s: each is followed by a quiet check.
    for (let t = 0; t < 120_000; t += 3000) {
      quiet.touch();
      vi.advanceTimersByTime(3000);
    }
    expect(collect).toHaveBeenCalledTimes(2);
    quiet.stop();
  });
});
