import { describe, expect, test } from "vitest";
import { curlCommand, shellQuote } from "../events/curl-command";
import { parseInline, parseMarkdown, safeHref } from "./markdown-parse";
import { sparkBars } from "./sparkline-path";

describe("comment markdown", () => {
  test("bold, italic, code, links, breaks, fences", () => {
    expect(parseMarkdown("**bold** and *it* and `x<y>` see https://example.com/a.\nnext\n\n```\n<b>raw</b>\n```")).toEqual([
      {
        t: "p",
        c: [
          { t: "strong", c: [{ t: "text", v: "bold" }] },
          { t: "text", v: " and " },
          { t: "em", c: [{ t: "text", v: "it" }] },
          { t: "text", v: " and " },
          { t: "code", v: "x<y>" },
          { t: "text", v: " see " },
          { t: "link", href: "https://example.com/a", c: [{ t: "text", v: "https://example.com/a" }] },
          { t: "text", v: "." },
          { t: "br" },
          { t: "text", v: "next" },
        ],
      },
      { t: "pre", v: "<b>raw</b>" },
    ]);
  });

  test("only http(s) links; everything else stays text", () => {
    expect(parseInline("[x](javascript:alert(1))", 0)).toEqual([
      { t: "text", v: "x" },
      { t: "text", v: " (javascript:alert(1)" },
      { t: "text", v: ")" },
    ]);
    expect(parseInline("[doc](https://a.example/x?y=1)", 0)).toEqual([
      { t: "link", href: "https://a.example/x?y=1", c: [{ t: "text", v: "doc" }] },
    ]);
    for (const bad of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " data:text/html,x", "vbscript:x", "/relative", "//evil.example"])
      expect(safeHref(bad)).toBeNull();
    expect(parseInline("snake_case_name stays", 0)).toEqual([{ t: "text", v: "snake_case_name stays" }]);
  });
});

describe("curl", () => {
  test("quotes every argument for the shell", () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(
      curlCommand({
        method: "post",
        url: "https://shop.example/cart",
        query: "id=1",
        headers: [
          ["Content-Type", "application/json"],
          ["Content-Length", "9"],
          ["X-Evil", "'; rm -rf / #"],
        ],
        cookies: [["sid", "abc"]],
        data: '{"a":1}',
      }),
    ).toBe(
      [
        "curl -X 'POST' 'https://shop.example/cart?id=1'",
        "-H 'Content-Type: application/json'",
        `-H 'X-Evil: '\\''; rm -rf / #'`,
        "-b 'sid=abc'",
        `--data-raw '{"a":1}'`,
      ].join(" \\\n  "),
    );
    expect(curlCommand({ headers: [], cookies: [] })).toBeNull();
  });
});

describe("sparkline", () => {
  test("bars scale to the maximum; empty series draw nothing", () => {
    expect(sparkBars([0, 0])).toBe("");
    const d = sparkBars([1, 0, 4], 30, 20);
    expect(d.match(/M/g)).toHaveLength(2);
    expect(d).toContain("M20.00 1.00");
  });
});
