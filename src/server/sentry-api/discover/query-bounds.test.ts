/**
 * Bounded queries (issue 39), fuzzed: whatever the query, the search language's parser and the
 * Discover planner either answer or refuse with a catalogued error, their work grows linearly with
 * the input (counted by the tokenizer, not timed), and matching the plan against rows cannot
 * backtrack. The wall-clock bound below is deliberately loose (a second per input, where the code
 * needs well under a millisecond): it catches the seconds-long stalls of issue 39, never jitter.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { AppError } from "../../../core/errors";
import { compileIssueSearch, type ParseMeter, parseQuery, QUERY_LIMITS } from "../../../core/search/parse-query";
import { wildcardMatch, wildcardMatcher } from "../../../core/search/wildcard";
import { type DiscoverRow, rowMatches } from "./evaluate";
import { discoverPlan, statsPlan } from "./plan";

const NOW = Date.UTC(2026, 0, 2);
const LOOSE_MS = 1000;

/** The language's punctuation, keys and the shapes that hurt before: nesting, stars, lists, quotes. */
const piece = fc.constantFrom(
  "(",
  ")",
  '"',
  "*",
  ":",
  "[",
  "]",
  ",",
  "!",
  " ",
  "\\",
  "a",
  "b",
  "title:",
  "message:",
  "is:",
  "level:",
  "firstSeen:",
  "timesSeen:>",
  "tags[x]:",
  "-24h",
  "user.email:",
  "has:",
  "((((",
  "))))",
  "*a*a*a",
  "[a,b,c]",
);
const query = fc.array(piece, { maxLength: 400 }).map((parts) => parts.join(""));
/** One piece repeated up to far past every bound (the 12 KB URL of the issue and more). */
const repeated = fc.tuple(piece, fc.integer({ min: 1, max: 8000 })).map(([p, n]) => p.repeat(n).slice(0, 16_000));

/** Rows whose text invites backtracking: long runs of one letter, of parentheses, of both. */
const HAYSTACKS = ["a".repeat(3000), `${"a".repeat(2000)}b`, "(".repeat(2000), `title ${"ab".repeat(1500)}`, ""];
const rows: DiscoverRow[] = HAYSTACKS.map((h) => ({
  column: (n) => (n === "timestamp" ? NOW - 1000 : h),
  tag: () => h,
  text: () => h,
  at: () => NOW - 1000,
}));

function refusedAsCatalogued(err: unknown): boolean {
  return err instanceof AppError && (err.code === "invalid_query" || err.code === "validation_failed");
}

/** Parses, compiles, plans (rows and stats) and matches the rows; returns the tokenizer's steps. */
function run(q: string): number {
  const meter: ParseMeter = { steps: 0 };
  try {
    compileIssueSearch(parseQuery(q, meter), NOW);
  } catch (err) {
    if (!refusedAsCatalogued(err)) throw err;
  }
  for (const plan of [
    () => discoverPlan(new URLSearchParams({ field: "title", query: q }), NOW),
    () => statsPlan(new URLSearchParams({ query: q }), NOW).plan,
  ]) {
    try {
      const p = plan();
      for (const r of rows) rowMatches(p, r);
    } catch (err) {
      if (!refusedAsCatalogued(err)) throw err;
    }
  }
  return meter.steps;
}

function check(q: string) {
  const started = performance.now();
  const steps = run(q);
  const ms = performance.now() - started;
  // Linear work: every character is visited a bounded number of times, and past the length bound none.
  expect(steps).toBeLessThanOrEqual(3 * Math.min(q.length, QUERY_LIMITS.length) + 1);
  expect(ms).toBeLessThan(LOOSE_MS);
}

describe("the search language and the Discover planner under generated input", () => {
  test("any mix of the language's pieces: answered or refused as catalogued, in linear work", () => {
    fc.assert(fc.property(query, (q) => check(q)));
  });

  test("one piece repeated past every bound: refused before the work (length, terms, values, depth)", () => {
    fc.assert(
      fc.property(repeated, (q) => check(q)),
      { numRuns: 60 },
    );
  });

  test("the issue's query: 6,000 nested parentheses around a word, refused at the length bound with no work", () => {
    const meter: ParseMeter = { steps: 0 };
    const q = `${"(".repeat(6000)}word${")".repeat(6000)}`;
    expect(() => parseQuery(q, meter)).toThrow(expect.objectContaining({ code: "invalid_query", position: QUERY_LIMITS.length }));
    expect(meter.steps).toBe(0);
    // Within the length, the nesting bound: refused where the 11th parenthesis opens, once the word is read.
    const deep = { steps: 0 };
    expect(() => parseQuery(`${"(".repeat(2000)}word`, deep)).toThrow(expect.objectContaining({ position: QUERY_LIMITS.depth }));
    expect(deep.steps).toBeLessThanOrEqual(1 + 2004 + QUERY_LIMITS.depth + 1);
  });

  test("the bounds themselves: terms, list values, nesting across words, quoted parentheses are text", () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
    expect(parseQuery(words(QUERY_LIMITS.terms)).text).toHaveLength(QUERY_LIMITS.terms);
    expect(() => parseQuery(words(QUERY_LIMITS.terms + 1))).toThrow(/more than 50 terms/);
    const list = (n: number) => `release:[${Array.from({ length: n }, (_, i) => `r${i}`).join(",")}]`;
    expect(parseQuery(list(QUERY_LIMITS.values)).terms[0]?.values).toHaveLength(QUERY_LIMITS.values);
    expect(() => parseQuery(`${list(150)} ${list(51)}`)).toThrow(/more than 200 values/);
    expect(() => parseQuery(`${"( ".repeat(10)}x`)).not.toThrow();
    expect(() => parseQuery(`${"( ".repeat(11)}x`)).toThrow(/nested more than 10 deep \(at character 21\)/);
    // Closed groups do not add up; quoted text is not nesting.
    expect(() => parseQuery(`${"(x) ".repeat(40)}`)).not.toThrow();
    expect(() => parseQuery(`message:"${"(".repeat(50)}"`)).not.toThrow();
    expect(() => parseQuery(`"${"(".repeat(50)}"`)).not.toThrow();
  });
});

test("the planner's own lists are bounded: fields, axes, top-events group-bys, and each name's length", () => {
  const many = (key: string, n: number) => new URLSearchParams(Array.from({ length: n }, (_, i) => [key, `tags[k${i}]`]));
  expect(() => discoverPlan(many("field", 30), NOW)).not.toThrow();
  expect(() => discoverPlan(many("field", 31), NOW)).toThrow(/At most 30 fields/);
  const axes = new URLSearchParams(Array.from({ length: 31 }, (_, i) => ["yAxis", `count_unique(tags[k${i}])`]));
  expect(() => statsPlan(axes, NOW)).toThrow(/At most 30 axes/);
  const top = many("field", 31);
  top.set("topEvents", "5");
  expect(() => statsPlan(top, NOW)).toThrow(/At most 30 fields/);
  expect(() => discoverPlan(new URLSearchParams({ field: "x".repeat(201) }), NOW)).toThrow(/at most 200 characters/);
});

describe("wildcards without backtracking", () => {
  test("the same answers as the regular expression they replace, on small inputs", () => {
    const small = fc.stringMatching(/^[ab*]{0,8}$/);
    fc.assert(
      fc.property(small, fc.stringMatching(/^[abAB]{0,10}$/), fc.boolean(), (pattern, value, fold) => {
        const source = `^${pattern
          .split("*")
          .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join(".*")}$`;
        const expected = pattern.includes("*") ? new RegExp(source, fold ? "is" : "s").test(value) : value === pattern;
        const folded = fold && pattern.includes("*");
        expect(wildcardMatch(value, pattern, { caseInsensitive: folded })).toBe(expected);
      }),
    );
  });

  test("a pattern of many stars against a long run of its letter is one pass, not a search", () => {
    const m = wildcardMatcher(`${"*a".repeat(1000)}*b`);
    expect(m("a".repeat(100_000))).toBe(false);
    expect(m(`${"a".repeat(100_000)}b`)).toBe(true);
    expect(wildcardMatch("Checkout failed", "*CHECKOUT*", { caseInsensitive: true })).toBe(true);
    expect(wildcardMatch("Checkout failed", "Checkout failed")).toBe(true);
    expect(wildcardMatch("Checkout failed", "checkout failed")).toBe(false);
    expect(wildcardMatch("ab", "a*b*")).toBe(true);
    expect(wildcardMatch("aXb", "*a*b")).toBe(true);
    expect(wildcardMatch("ba", "*a*b")).toBe(false);
  });
});
