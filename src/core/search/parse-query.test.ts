import { describe, expect, test } from "vitest";
import { AppError } from "../errors";
import type { NormalizedEvent } from "../event";
import { statTagsOf } from "./event-tags";
import { compileIssueSearch, parseIssueSearch, parseQuery, pastedEventId } from "./parse-query";
import { applyCompletion, completionContext, matchKeys } from "./suggest";

const NOW = Date.UTC(2025, 4, 10, 12);
const H = 3_600_000;

function errorAt(fn: () => unknown): { message: string; position?: number } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe("invalid_query");
    return { message: (e as AppError).message, position: (e as AppError).position };
  }
  throw new Error("expected an invalid_query error");
}

describe("parseQuery", () => {
  test("terms, quoted values, negation and free text with positions", () => {
    const q = parseQuery('is:unresolved level:error browser:"Chrome 120" !env:prod boom here');
    expect(q.terms).toEqual([
      { key: "is", value: "unresolved", negated: false, position: 0 },
      { key: "level", value: "error", negated: false, position: 14 },
      { key: "browser", value: "Chrome 120", negated: false, position: 26 },
      { key: "env", value: "prod", negated: true, position: 47 },
    ]);
    expect(q.text).toEqual(["boom", "here"]);
  });

  test("lists, reserved keys case-insensitive, tag keys keep their case", () => {
    const q = parseQuery("LEVEL:[error, fatal] Browser.Name:Firefox");
    expect(q.terms[0]).toMatchObject({ key: "level", values: ["error", "fatal"] });
    expect(q.terms[1]).toMatchObject({ key: "Browser.Name", value: "Firefox" });
  });

  test("errors carry the position", () => {
    expect(errorAt(() => parseQuery('level:error msg:"open')).position).toBe(12);
    expect(errorAt(() => parseQuery("boom level:")).position).toBe(5);
    expect(errorAt(() => parseQuery("a level:[error")).position).toBe(2);
    expect(errorAt(() => parseQuery('x "free text')).position).toBe(2);
  });
});

describe("compileIssueSearch: the SPEC §2 language", () => {
  test("every key", () => {
    const s = parseIssueSearch(
      'is:unresolved level:error environment:prod release:1.2.3 project:web assigned:me has:user digest:2183930132@E7 user.email:a@b.c browser:"Chrome 120" firstSeen:-24h lastSeen:+7d "free text" word',
      NOW,
    );
    expect(s.conditions).toEqual([
      { kind: "status", values: ["unresolved"], negated: false },
      { kind: "level", values: ["error"], negated: false },
      { kind: "tag", key: "environment", values: ["prod"], negated: false },
      { kind: "tag", key: "release", values: ["1.2.3"], negated: false },
      { kind: "project", values: ["web"], negated: false },
      { kind: "assigned", values: ["me"], negated: false },
      { kind: "has", key: "user", negated: false },
      { kind: "digest", values: ["2183930132"], negated: false },
      { kind: "tag", key: "user.email", values: ["a@b.c"], negated: false },
      { kind: "tag", key: "browser", values: ["Chrome 120"], negated: false },
      { kind: "time", field: "firstSeen", op: "gte", at: NOW - 24 * H },
      { kind: "time", field: "lastSeen", op: "lte", at: NOW - 7 * 24 * H },
      { kind: "text", value: "free text" },
      { kind: "text", value: "word" },
    ]);
    expect(s.mentionsStatus).toBe(true);
  });

  test("negation, lists, shorthands, absolute dates", () => {
    const s = compileIssueSearch(
      parseQuery("!is:[resolved,ignored] is:unassigned !level:debug env:staging user.id:42 age:>=2025-05-01 !lastSeen:-1h"),
      NOW,
    );
    expect(s.conditions).toEqual([
      { kind: "status", values: ["resolved", "ignored"], negated: true },
      { kind: "assigned", values: ["none"], negated: false },
      { kind: "level", values: ["debug"], negated: true },
      { kind: "tag", key: "environment", values: ["staging"], negated: false },
      { kind: "tag", key: "user", values: ["id:42"], negated: false },
      { kind: "time", field: "firstSeen", op: "gte", at: Date.UTC(2025, 4, 1) },
      { kind: "time", field: "lastSeen", op: "lte", at: NOW - H },
    ]);
    expect(compileIssueSearch(parseQuery("is:assigned"), NOW)).toEqual({
      conditions: [{ kind: "assigned", values: ["none"], negated: true }],
      mentionsStatus: false,
    });
  });

  test("bad values are errors at the term's position", () => {
    expect(errorAt(() => parseIssueSearch("boom is:sleeping", NOW))).toMatchObject({
      position: 5,
      message: expect.stringMatching(/Unknown status "sleeping"/),
    });
    expect(errorAt(() => parseIssueSearch("level:loud", NOW)).position).toBe(0);
    expect(errorAt(() => parseIssueSearch("x firstSeen:yesterday", NOW))).toMatchObject({
      position: 2,
      message: expect.stringMatching(/-24h/),
    });
    expect(errorAt(() => parseIssueSearch("digest:NEXT_REDIRECT;a", NOW)).position).toBe(0);
  });

  test("a pasted event id", () => {
    expect(pastedEventId(" 0123456789ABCDEF0123456789abcdef ")).toBe("0123456789abcdef0123456789abcdef");
    expect(pastedEventId("01234567-89ab-cdef-0123-456789abcdef")).toBe("0123456789abcdef0123456789abcdef");
    expect(pastedEventId("is:unresolved")).toBeNull();
  });
});

describe("autocompletion", () => {
  test("the token under the caret", () => {
    expect(completionContext("is:unresolved lev", 17)).toEqual({ kind: "key", prefix: "lev", from: 14, to: 17 });
    expect(completionContext("is:unresolved !level:er", 23)).toEqual({
      kind: "value",
      key: "level",
      prefix: "er",
      negated: true,
      from: 21,
      to: 23,
    });
    expect(completionContext('browser:"Chr', 12)).toMatchObject({ kind: "value", key: "browser", prefix: "Chr" });
    expect(completionContext('"free te', 8)).toBeNull();
  });

  test("applying a completion", () => {
    const q = "is:unresolved lev boom";
    const ctx = completionContext(q, 17);
    expect(ctx && applyCompletion(q, ctx, "level")).toEqual({ query: "is:unresolved level:boom", caret: 20 });
    const v = "browser:Ch x";
    const vctx = completionContext(v, 10);
    expect(vctx && applyCompletion(v, vctx, "Chrome 120")).toEqual({ query: 'browser:"Chrome 120" x', caret: 21 });
  });

  test("keys: the language's first, then the data's tags", () => {
    expect(matchKeys("re", ["region", "release"]).map((k) => k.value)).toEqual(["release", "region"]);
  });
});

describe("statTagsOf", () => {
  test("derived tags first, then the SDK's, each key once", () => {
    const event = {
      event_id: "a".repeat(32),
      timestamp: 1,
      received: 1,
      platform: "javascript",
      level: "error",
      environment: "production",
      release: "web@1.0.0",
      user: { id: "42", email: "ada@example.com" },
      contexts: { browser: { name: "Chrome", version: "120.0" }, os: { name: "macOS" } },
      request: { url: "https://shop.example/cart?id=1#x" },
      exception: { values: [{ type: "Error", mechanism: { type: "onerror", handled: false } }] },
      tags: [
        ["environment", "ignored"],
        ["region", "eu"],
      ],
      errata: { notes: [] },
    } as unknown as NormalizedEvent;
    expect(statTagsOf(event, "123")).toEqual([
      ["level", "error"],
      ["environment", "production"],
      ["release", "web@1.0.0"],
      ["user", "id:42"],
      ["user.email", "ada@example.com"],
      ["browser", "Chrome 120.0"],
      ["browser.name", "Chrome"],
      ["os", "macOS"],
      ["os.name", "macOS"],
      ["url", "https://shop.example/cart"],
      ["handled", "no"],
      ["mechanism", "onerror"],
      ["digest", "123"],
      ["region", "eu"],
    ]);
  });
});

describe("timesSeen and unknown keys", () => {
  test("timesSeen / times_seen take >, >=, <, <=, = and a bare number", () => {
    const c = (q: string) => parseIssueSearch(q, NOW).conditions[0];
    expect(c("timesSeen:>10")).toEqual({ kind: "count", op: "gt", value: 10, negated: false });
    expect(c("times_seen:>=10")).toEqual({ kind: "count", op: "gte", value: 10, negated: false });
    expect(c("TimesSeen:<3")).toEqual({ kind: "count", op: "lt", value: 3, negated: false });
    expect(c("timesSeen:<=3")).toEqual({ kind: "count", op: "lte", value: 3, negated: false });
    expect(c("timesSeen:=3")).toEqual({ kind: "count", op: "eq", value: 3, negated: false });
    expect(c("!timesSeen:7")).toEqual({ kind: "count", op: "eq", value: 7, negated: true });
    expect(errorAt(() => parseIssueSearch("level:error timesSeen:>ten", NOW)).position).toBe(12);
  });

  test("with the projects' tag keys known, any other key is an invalid_query at its position (as level:nonsense)", () => {
    const known = new Set(["region"]);
    const unknown = errorAt(() => parseIssueSearch("level:error timesSee:>10", NOW, known));
    expect(unknown.position).toBe(12);
    expect(unknown.message).toContain('Unknown search key "timesSee"');
    expect(errorAt(() => parseIssueSearch("level:nonsense", NOW, known)).position).toBe(0);
    // The language's keys, derived tags and known tags are fine.
    expect(() => parseIssueSearch("region:eu browser:Chrome os.name:iOS is:new release:1 timesSeen:>1", NOW, known)).not.toThrow();
  });
});
