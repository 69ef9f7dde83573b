import { describe, expect, test } from "vitest";
import { isStaleBuildError } from "./stale-build";

describe("the error page tells a tab that outlived a deploy to reload", () => {
  test("missing chunks and Server Actions of the previous build are stale-build errors; others are not", () => {
    const chunk = Object.assign(new Error("Loading chunk 812 failed."), { name: "ChunkLoadError" });
    expect(isStaleBuildError(chunk)).toBe(true);
    expect(isStaleBuildError(new Error("Failed to load chunk /_next/static/chunks/a1b2.js from module 4321"))).toBe(true);
    expect(
      isStaleBuildError(new Error('Failed to find Server Action "7f3a". This request might be from an older or newer deployment.')),
    ).toBe(true);
    expect(isStaleBuildError(new Error("Cannot read properties of undefined (reading 'total')"))).toBe(false);
    expect(isStaleBuildError("Loading chunk 1 failed")).toBe(false);
    expect(isStaleBuildError(null)).toBe(false);
  });
});
