import { describe, expect, test } from "vitest";
import type { NormalizedEvent } from "../event";
import { codeownersMatcher, matchingRules, ownershipFactsOf, pathHint } from "./match";
import { parseOwnershipRules } from "./rules";
import { inAppPaths, pathMatchScore, suspectCommits } from "./suspect-commits";

const event = (frames: Array<Record<string, unknown>>, extra: Partial<NormalizedEvent> = {}) =>
  ({ exception: { values: [{ type: "Error", stacktrace: { frames } }] }, ...extra }) as unknown as NormalizedEvent;

describe("ownership rules", () => {
  test("parses Sentry's syntax: types, default path, owners, comments", () => {
    const { rules, errors } = parseOwnershipRules(
      [
        "# payments own checkout",
        "path:*/checkout/* #payments",
        "src/api/** dev@example.com #Backend",
        "module:app.billing.* pay@example.com",
        "url:*/admin/* #ops",
        "tags.transaction:/checkout #payments",
        "codeowners:/docs/ docs@example.com",
        "",
      ].join("\n"),
    );
    expect(errors).toEqual([]);
    expect(rules.map((r) => [r.line, r.matcher.type, r.matcher.pattern])).toEqual([
      [2, "path", "*/checkout/*"],
      [3, "path", "src/api/**"],
      [4, "module", "app.billing.*"],
      [5, "url", "*/admin/*"],
      [6, "tags.transaction", "/checkout"],
      [7, "codeowners", "/docs/"],
    ]);
    expect(rules[1]?.owners).toEqual([
      { type: "user", identifier: "dev@example.com" },
      { type: "team", identifier: "backend" },
    ]);
  });

  test("every bad line is named with its number", () => {
    const { errors } = parseOwnershipRules("path:src/** #ok\nfile:x #a\npath:src/**\npath:src nobody\npath: #a");
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5]);
    expect(errors[0]?.message).toContain('unknown rule type "file"');
    expect(errors[1]?.message).toContain("no owner");
    expect(errors[2]?.message).toContain('"nobody" is not an owner');
    expect(errors[3]?.message).toContain("no pattern");
    expect(parseOwnershipRules("x".repeat(100_001)).errors[0]?.line).toBe(0);
  });

  test("matching: last rule wins; paths, modules, url and tags", () => {
    const { rules } = parseOwnershipRules(
      "path:src/** #web\npath:*/checkout/* #payments\nmodule:billing.* #billing\nurl:https://shop.example/* #shop\ntags.region:eu-* #eu",
    );
    const e = event([{ filename: "src/checkout/pay.js", in_app: true }], {
      request: { url: "https://shop.example/cart" },
      tags: [["region", "eu-west"]],
    } as Partial<NormalizedEvent>);
    const m = matchingRules(rules, ownershipFactsOf(e));
    expect(m.map((r) => r.line)).toEqual([1, 2, 4, 5]);
    const node = event([{ abs_path: "/srv/app/src/checkout/pay.js", module: "billing.invoice" }]);
    // `src/**` is relative: it matches the Node frame from its src/ directory on.
    expect(matchingRules(rules, ownershipFactsOf(node)).map((r) => r.line)).toEqual([1, 2, 3]);
    expect(matchingRules(rules, ownershipFactsOf(event([{ filename: "lib/x.js" }])))).toEqual([]);
  });

  test("path:src/checkout/* matches a Node frame under /srv/app as the CODEOWNERS line /src/checkout/ does; absolute patterns stay anchored", () => {
    const node = ownershipFactsOf(
      event([{ filename: "/srv/app/src/checkout/pay.mjs", abs_path: "/srv/app/src/checkout/pay.mjs", in_app: true }]),
    );
    const { rules } = parseOwnershipRules(
      "path:src/checkout/* #payments\ncodeowners:/src/checkout/ #payments\npath:/src/checkout/* #nobody",
    );
    expect(matchingRules(rules, node).map((r) => r.line)).toEqual([1, 2]);
    expect(matchingRules(parseOwnershipRules("path:/srv/app/src/* #x").rules, node).map((r) => r.line)).toEqual([1]);
    expect(matchingRules(parseOwnershipRules("path:lib/checkout/* #x").rules, node)).toEqual([]);
  });

  test("no rule matches: the paths tried (in-app, crashing frame first) and a rule that would match", () => {
    const e = event([
      { filename: "node:internal/process/task_queues", in_app: false },
      { filename: "/srv/app/src/server.mjs", in_app: true },
      { filename: "/srv/app/src/checkout/pay.mjs", in_app: true },
    ]);
    const hint = pathHint(e);
    expect(hint.tried).toEqual(["/srv/app/src/checkout/pay.mjs", "/srv/app/src/server.mjs", "node:internal/process/task_queues"]);
    expect(hint.suggestion).toBe("path:src/checkout/*");
    const suggested = parseOwnershipRules(`${hint.suggestion} #payments`).rules;
    expect(matchingRules(suggested, ownershipFactsOf(e)).map((r) => r.line)).toEqual([1]);
    expect(pathHint(event([{ filename: "app.js", in_app: true }])).suggestion).toBe("path:app.js");
    expect(pathHint(event([]))).toEqual({ tried: [], suggestion: null });
  });

  test("codeowners semantics", () => {
    expect(codeownersMatcher("*.js")("src/a/b.js")).toBe(true);
    expect(codeownersMatcher("/src/*.js")("src/a/b.js")).toBe(false);
    expect(codeownersMatcher("/src/*.js")("src/b.js")).toBe(true);
    expect(codeownersMatcher("docs/")("docs/x/y.md")).toBe(true);
    expect(codeownersMatcher("src/**/pay.js")("src/a/b/pay.js")).toBe(true);
    expect(codeownersMatcher("apps/")("x/apps/y.ts")).toBe(true);
  });
});

describe("suspect commits", () => {
  test("in-app frames matched to changed files by path suffix", () => {
    const e = event([
      { filename: "node_modules/lib/index.js", in_app: false },
      { abs_path: "/srv/app/src/checkout/pay.js", filename: "src/checkout/pay.js", in_app: true },
    ]);
    expect(inAppPaths(e)).toEqual(["srv/app/src/checkout/pay.js", "src/checkout/pay.js"]);
    expect(pathMatchScore("srv/app/src/checkout/pay.js", "src/checkout/pay.js")).toBe(3);
    expect(pathMatchScore("srv/app/src/checkout/pay.js", "lib/pay.js")).toBe(0);
    const commit = (id: string, position: number, files: string[]) => ({
      id,
      repository: "acme/shop",
      message: null,
      authorName: null,
      authorEmail: `${id}@example.com`,
      timestamp: null,
      position,
      files,
    });
    const found = suspectCommits(inAppPaths(e), [
      commit("a", 0, ["README.md"]),
      commit("b", 1, ["pay.js"]),
      commit("c", 2, ["src/checkout/pay.js", "src/x.js"]),
    ]);
    expect(found.map((s) => [s.commit.id, s.score, s.file])).toEqual([
      ["c", 3, "src/checkout/pay.js"],
      ["b", 1, "pay.js"],
    ]);
  });
});
