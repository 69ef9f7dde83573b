import { describe, expect, it } from "vitest";
import { nextClaimSize } from "../../src/pipeline/worker";

describe("nextClaimSize (SQLite digest pacing)", () => {
  it("shrinks towards what fits the lock target, halfway at a time", () => {
    // 200 items held the lock 60 ms: 0.3 ms each, 66 fit in 20 ms; halfway from 200 → 133.
    expect(nextClaimSize(200, 200, 60, 200)).toBe(133);
  });

  it("grows back when transactions are short, up to the configured batch size", () => {
    expect(nextClaimSize(50, 50, 1, 200)).toBe(200);
  });

  it("never goes below the floor, nor the configured size when that is smaller", () => {
    expect(nextClaimSize(10, 10, 500, 200)).toBe(10);
    expect(nextClaimSize(2, 2, 500, 2)).toBe(2);
  });

  it("keeps the size when there is nothing to learn from", () => {
    expect(nextClaimSize(80, 0, 10, 200)).toBe(80);
    expect(nextClaimSize(80, 5, 0, 200)).toBe(80);
  });
});
