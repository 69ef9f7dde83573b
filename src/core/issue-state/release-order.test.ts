import { describe, expect, test } from "vitest";
import { compareSemver, isReleaseLater, latestRelease, parseSemver, semverComparable } from "./release-order";

const cmp = (a: string, b: string) => {
  const pa = parseSemver(a);
  const pb = parseSemver(b);
  if (!pa || !pb) throw new Error(`unparsed ${a} / ${b}`);
  return compareSemver(pa, pb);
};

describe("semver", () => {
  test.each([
    ["1.10.0", "1.9.0", 1],
    ["1.2.0", "1.2.0", 0],
    ["1.2", "1.2.0", 0],
    ["v1.3.0", "1.2.9", 1],
    ["2.0.0", "10.0.0", -1],
    ["1.2.3.4", "1.2.3.10", -1],
    ["1.2.0-rc.1", "1.2.0", -1],
    ["1.2.0-alpha", "1.2.0-alpha.1", -1],
    ["1.2.0-alpha.1", "1.2.0-alpha.beta", -1],
    ["1.2.0-alpha.beta", "1.2.0-beta", -1],
    ["1.2.0-beta.2", "1.2.0-beta.11", -1],
    ["1.2.0-beta.11", "1.2.0-rc.1", -1],
    ["1.2.3+build.5", "1.2.3+build.6", 0],
    ["app@1.10.0", "app@1.9.9", 1],
    ["12345678901234567890.0.0", "12345678901234567889.0.0", 1],
    ["01.002.0", "1.2.0", 0],
  ])("%s vs %s → %i", (a, b, expected) => {
    expect(cmp(a, b)).toBe(expected);
    expect(cmp(b, a)).toBe(-expected || 0);
  });

  test.each(["abc", "1", "2024", "deadbeef", "1.2.3-", "1..2", "v", ""])("%s is not semver", (v) => {
    expect(parseSemver(v)).toBeUndefined();
  });

  test("package prefixes: scoped packages parse; different packages do not compare", () => {
    expect(parseSemver("@acme/web@2.1.0")).toEqual({ package: "@acme/web", core: ["2", "1", "0", "0"], pre: [] });
    expect(semverComparable("web@1.0.0", "api@2.0.0")).toBe(false);
    expect(semverComparable("web@1.0.0", "web@2.0.0")).toBe(true);
    expect(semverComparable("1.0.0+a", "1.0.0+b")).toBe(false);
  });
});

describe("isReleaseLater", () => {
  const r = (version: string, order: number | null = null) => ({ version, order });
  test.each([
    // semver wins over creation order
    [r("1.3.0", 1), r("1.2.0", 5), true],
    [r("1.1.0", 9), r("1.2.0", 5), false],
    [r("1.10.0", 1), r("1.9.0", 2), true],
    [r("1.2.0", 1), r("1.2.0", 9), false],
    [r("1.2.0-rc.1", 9), r("1.2.0", 1), false],
    // not semver: creation order
    [r("deadbeef", 10), r("cafebabe", 5), true],
    [r("deadbeef", 4), r("cafebabe", 5), false],
    [r("deadbeef", 5), r("cafebabe", 5), false],
    [r("1.2.0", 10), r("nightly", 5), true],
    [r("web@2.0.0", 1), r("api@1.0.0", 5), false],
    // same precedence, different build: creation order decides
    [r("1.0.0+2", 7), r("1.0.0+1", 6), true],
    // unknown order: assume later (surface the regression)
    [r("deadbeef", null), r("cafebabe", 5), true],
  ])("%o later than %o → %s", (a, b, expected) => {
    expect(isReleaseLater(a, b)).toBe(expected);
  });
});

describe("latestRelease", () => {
  test("all semver → highest version, whatever the creation order", () => {
    expect(
      latestRelease([
        { version: "1.10.0", order: 1 },
        { version: "1.9.0", order: 3 },
        { version: "1.2.0", order: 2 },
      ])?.version,
    ).toBe("1.10.0");
  });
  test("any non-semver → most recently created", () => {
    expect(
      latestRelease([
        { version: "1.10.0", order: 1 },
        { version: "abc", order: 3 },
        { version: "1.2.0", order: 2 },
      ])?.version,
    ).toBe("abc");
  });
  test("empty → undefined", () => {
    expect(latestRelease([])).toBeUndefined();
  });
});
