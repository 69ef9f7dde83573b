import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { compileGlob, globNodes } from "./grouping/rules/glob";
import { codeownersMatcher, globMatcher } from "./ownership/match";
import { compilePattern } from "./pattern-nfa";

/** The regular expression the globs used to compile to: the reference the automaton must agree with. */
function referenceGlob(pattern: string, pathLike: boolean): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*") {
      if (pathLike && pattern[i + 1] === "*") {
        out += ".*";
        i += 1;
      } else out += pathLike ? "[^/]*" : ".*";
    } else if (c === "?") out += pathLike ? "[^/]" : ".";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "s");
}

const alphabet = (chars: string, max: number) => fc.array(fc.constantFrom(...chars.split("")), { maxLength: max }).map((a) => a.join(""));

describe("glob patterns as automata", () => {
  test("agree with the backtracking regular expressions they replace (small alphabet, paths and names)", () => {
    fc.assert(
      fc.property(alphabet("ab/*?", 8), alphabet("ab/", 12), fc.boolean(), (pattern, value, pathLike) => {
        const want = referenceGlob(pattern, pathLike).test(value);
        expect(compilePattern(globNodes(pattern, pathLike))(value)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });

  test("bracket classes, ranges and negation", () => {
    const g = compileGlob("file[0-9][!x].js", false);
    expect(g("file1a.js")).toBe(true);
    expect(g("file1x.js")).toBe(false);
    expect(g("filea1.js")).toBe(false);
    expect(compileGlob("[[]*", false)("[x")).toBe(true);
  });

  test("a pattern that made a regular expression backtrack combinatorially is answered at once", () => {
    // `^.*a.*a…(30)….*b$` against 200 a's: the regular expression tries every way to place 30 a's.
    const stars = `${"*a".repeat(30)}*b`;
    const value = "a".repeat(200);
    expect(compileGlob(stars, false)(value)).toBe(false);
    expect(compileGlob(stars, true)(value)).toBe(false);
    expect(globMatcher(stars)(value)).toBe(false);
    expect(codeownersMatcher(`${"**/a".repeat(30)}/b`)(value.split("").join("/"))).toBe(false);
    expect(compileGlob(stars, false)(`${value}b`)).toBe(true);
  });

  test("CODEOWNERS: directories, anchoring, case", () => {
    expect(codeownersMatcher("/SRC/checkout/")("src/Checkout/pay.js")).toBe(true);
    expect(codeownersMatcher("apps/")("x/apps/y.ts")).toBe(true);
    expect(codeownersMatcher("/apps/")("x/apps/y.ts")).toBe(false);
    expect(codeownersMatcher("src/**/pay.js")("src/pay.js")).toBe(true);
    expect(codeownersMatcher("*.md")("docs/a/readme.MD")).toBe(true);
  });
});
