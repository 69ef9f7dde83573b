import { describe, expect, it } from "vitest";
import { CLAIM_BYTES, claimForBytes, nextClaimSize } from "../../src/pipeline/worker";

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

describe("claimForBytes (a digest batch's memory)", () => {
  it("caps the claim so the last batch's mean body size fits the byte budget", () => {
    // 46 KB envelopes: 2 MiB hold 45 of them, not the configured 200.
    expect(claimForBytes(200, 200, 200 * 46_353)).toBe(Math.floor(CLAIM_BYTES / 46_353));
    expect(claimForBytes(200, 10, 10 * 46_353, 1_000_000)).toBe(21);
  });

  it("leaves small bodies at the configured size", () => {
    // 8.5 KB envelopes: 246 would fit, 200 are wanted.
    expect(claimForBytes(200, 200, 200 * 8_516)).toBe(200);
  });

  it("claims at least one item however large, and the wanted size with nothing to learn from", () => {
    expect(claimForBytes(200, 1, 90 * 1024 * 1024)).toBe(1);
    expect(claimForBytes(150, 0, 0)).toBe(150);
  });
});
