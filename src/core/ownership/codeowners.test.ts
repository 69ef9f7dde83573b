import { describe, expect, test } from "vitest";
import { codeownersRules, type ExternalTarget, externalNamesOf, MAX_CODEOWNERS_CHARS, parseCodeowners } from "./codeowners";
import { matchingRules, ownershipFactsOf } from "./match";

const frame = (filename: string) => ownershipFactsOf({ exception: { values: [{ stacktrace: { frames: [{ filename }] } }] } } as never);

describe("CODEOWNERS", () => {
  test("GitHub syntax: comments, escapes, ownerless lines, emails and handles", () => {
    const { entries, errors } = parseCodeowners(
      [
        "# top comment",
        "*.js    @acme/frontend   # trailing comment",
        "/src/checkout/ @acme/payments pat@example.com",
        "docs/\\#notes.md @writer",
        "/vendor/",
        "",
      ].join("\n"),
    );
    expect(errors).toEqual([]);
    expect(entries).toEqual([
      { line: 2, pattern: "*.js", owners: ["@acme/frontend"], section: null },
      { line: 3, pattern: "/src/checkout/", owners: ["@acme/payments", "pat@example.com"], section: null },
      { line: 4, pattern: "docs/#notes.md", owners: ["@writer"], section: null },
      { line: 5, pattern: "/vendor/", owners: [], section: null },
    ]);
    expect(externalNamesOf(entries)).toEqual(["@acme/frontend", "@acme/payments", "@writer"]);
  });

  test("GitLab sections: default owners, optional sections, approvals count", () => {
    const { entries, errors } = parseCodeowners(
      ["[Docs] @docs-team", "docs/", "README.md @pat", "^[Optional][2] @group/sub", "*.rb", "[abc].txt @x"].join("\n"),
    );
    expect(errors).toEqual([]);
    expect(entries).toEqual([
      { line: 2, pattern: "docs/", owners: ["@docs-team"], section: "Docs" },
      { line: 3, pattern: "README.md", owners: ["@pat"], section: "Docs" },
      { line: 5, pattern: "*.rb", owners: ["@group/sub"], section: "Optional" },
      // a character class is a pattern, not a section
      { line: 6, pattern: "[abc].txt", owners: ["@x"], section: "Optional" },
    ]);
  });

  test("bad owners are reported by line; an oversized file is refused whole", () => {
    expect(parseCodeowners("src/ @ok\nlib/ not-an-owner").errors).toEqual([{ line: 2, message: expect.stringContaining("not-an-owner") }]);
    const big = parseCodeowners(`src/ @a\n${"x".repeat(MAX_CODEOWNERS_CHARS)}`);
    expect(big.entries).toEqual([]);
    expect(big.errors[0]?.message).toContain("longer than 200,000");
  });

  test("as ownership rules: mapped names own, unmatched ones are listed, the last line wins", () => {
    const { entries } = parseCodeowners("* @acme/everyone\n/src/checkout/ @acme/payments @ghost pat@example.com\n/vendor/");
    const mapping = new Map<string, ExternalTarget>([
      ["@acme/payments", { type: "team", slug: "payments" }],
      ["@acme/everyone", { type: "team", slug: "all" }],
    ]);
    const { rules, unmatched } = codeownersRules(entries, mapping, (e) => e === "pat@example.com");
    expect(unmatched).toEqual(["@ghost"]);
    expect(rules[1]?.owners).toEqual([
      { type: "team", identifier: "payments" },
      { type: "user", identifier: "pat@example.com" },
    ]);
    expect(matchingRules(rules, frame("/srv/app/src/checkout/pay.js")).at(-1)?.owners[0]).toEqual({ type: "team", identifier: "payments" });
    expect(matchingRules(rules, frame("src/search/find.js")).at(-1)?.owners).toEqual([{ type: "team", identifier: "all" }]);
    // an ownerless line ends ownership
    expect(matchingRules(rules, frame("vendor/lib.js")).at(-1)?.owners).toEqual([]);
  });
});
