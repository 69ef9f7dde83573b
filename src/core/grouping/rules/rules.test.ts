import { describe, expect, test } from "vitest";
import { parseFingerprintRules } from "./fingerprint-rules";
import { compileGlob, normalizePath } from "./glob";
import { applyStackRules, parseStackRules } from "./stack-rules";

describe("glob", () => {
  test("paths: * stops at /, ** crosses it, case and backslashes ignored", () => {
    // Path values are normalised once per frame (normalizePath), patterns at compile time.
    expect(compileGlob("**/node_modules/**", true)(normalizePath("/srv/node_modules/x/y.js"))).toBe(true);
    expect(compileGlob("src/*.js", true)(normalizePath("src/a/b.js"))).toBe(false);
    expect(compileGlob("C:/App/**", true)(normalizePath("c:\\app\\x.dll"))).toBe(true);
    expect(compileGlob("**/*NewRelic*/**", true)(normalizePath("/opt/newrelic-agent/lib/x.js"))).toBe(true);
  });
  test("names: * crosses everything, case matters, [[] is a bracket", () => {
    expect(compileGlob("io.sentry.*", false)("io.sentry.spring.Filter")).toBe(true);
    expect(compileGlob("io.sentry.*", false)("IO.sentry.x")).toBe(false);
    expect(compileGlob("?[[]KSCrash*", false)("-[KSCrash install]")).toBe(true);
  });
});

describe("stack trace rules", () => {
  test("each bad line is reported with its number; good lines are kept", () => {
    const { rules, errors } = parseStackRules(
      [
        "# comment",
        "stack.module:a.* -group",
        "stack.module:b +sideways",
        "",
        "nonsense",
        'stack.function:"x y" ^-group v+app max-frames=3',
        "family:martian -app",
        "[ stack.module:c ] | stack.function:d -app",
      ].join("\n"),
    );
    expect(rules.map((r) => r.line)).toEqual([2, 6, 8]);
    expect(errors.map((e) => e.line)).toEqual([3, 5, 7]);
    expect(errors[0]?.message).toMatch(/\+sideways/);
    expect(errors[2]?.message).toMatch(/unknown family/);
  });

  test("ranges: ^ is toward the crash, v toward the thread's start; later rules win", () => {
    const { rules } = parseStackRules("stack.function:mid ^-group v-app\nstack.function:top +group");
    const frames = ["base", "mid", "inner", "top"].map((fn) => ({ frame: { function: fn }, family: "other" as const }));
    const d = applyStackRules(rules, frames, [true, true, true, true]);
    expect(d.frames.map((f) => f.group)).toEqual([true, true, false, true]);
    expect(d.frames.map((f) => f.inApp)).toEqual([false, true, true, true]);
  });

  test("caller and callee matchers", () => {
    const { rules } = parseStackRules("[ stack.function:a ] | stack.function:b -group\nstack.function:c | [ stack.function:zzz ] -group");
    const frames = ["a", "b", "c", "d"].map((fn) => ({ frame: { function: fn }, family: "other" as const }));
    expect(applyStackRules(rules, frames, [true, true, true, true]).frames.map((f) => f.group)).toEqual([true, false, true, true]);
  });
});

describe("fingerprint rules", () => {
  test("values, variables with spaces, title; errors per line", () => {
    const { rules, errors } = parseFingerprintRules(
      'error.type:Db* -> db, {{ transaction }} title="DB: {{ type }}"\nerror.type:X db\nmessage:"a b" -> "quoted, value"\ntags.:x -> y\nlogger:a -> {{ default',
    );
    expect(rules[0]).toMatchObject({ fingerprint: ["db", "{{ transaction }}"], title: "DB: {{ type }}" });
    expect(rules[1]).toMatchObject({ line: 3, fingerprint: ["quoted, value"] });
    expect(errors.map((e) => e.line)).toEqual([2, 4, 5]);
  });
});
