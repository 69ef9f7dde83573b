import { describe, expect, test } from "vitest";
import { boundedStringify, limitDepth, MAX_EVENT_DEPTH, previewJson } from "./bounded-json";
import { coerceEpochSeconds, normalizeEvent } from "./normalize-event";

const deep = (n: number): unknown => JSON.parse(`${'{"a":'.repeat(n)}1${"}".repeat(n)}`);

describe("bounded JSON", () => {
  test("previewJson equals JSON.stringify for ordinary values and stops near its budget", () => {
    const v = { a: [1, "x", null, undefined, { b: true }], c: undefined, d: -0, e: "é\n" };
    expect(previewJson(v, 1000)).toBe(JSON.stringify(v));
    expect(previewJson(undefined, 10)).toBeUndefined();
    const long =
      previewJson(
        Array.from({ length: 10_000 }, (_, i) => i),
        100,
      ) ?? "";
    expect(long.length).toBeLessThan(120);
    expect(long.startsWith("[0,1,2")).toBe(true);
    expect(() => previewJson(deep(100_000), 1_000_000)).not.toThrow();
  });

  test("limitDepth: same reference when shallow; deep values become a short preview", () => {
    const shallow = { a: { b: [1, 2] } };
    expect(limitDepth(shallow, 3)).toEqual({ value: shallow, cut: 0 });
    expect(limitDepth(shallow, 3).value).toBe(shallow);
    const { value, cut } = limitDepth({ keep: 1, x: deep(100_000) }, 4);
    expect(cut).toBe(1);
    const text = JSON.stringify(value);
    expect(text.length).toBeLessThan(400);
    expect((value as { keep: number }).keep).toBe(1);
    expect(() => boundedStringify(deep(50_000))).not.toThrow();
  });

  test("a __proto__ key stays a plain own key", () => {
    const v = JSON.parse(`{"__proto__":{"x":${JSON.stringify(deep(10))}},"b":${JSON.stringify(deep(10))}}`);
    const { value } = limitDepth(v, 3);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toEqual(["__proto__", "b"]);
  });
});

describe("odd numbers and nesting in the normaliser", () => {
  const ctx = { receivedAt: 1_795_344_235_444, clientIp: null, eventId: "a".repeat(32) };
  test("epoch units: seconds kept; ms, µs, ns scaled; beyond any unit refused", () => {
    expect(coerceEpochSeconds(1_795_344_235)).toEqual({ secs: 1_795_344_235 });
    expect(coerceEpochSeconds(1_795_344_235_000)).toEqual({ secs: 1_795_344_235, unit: "milliseconds" });
    expect(coerceEpochSeconds(1_795_344_235_000_000)).toEqual({ secs: 1_795_344_235, unit: "microseconds" });
    expect(coerceEpochSeconds(1.795344235e18)?.unit).toBe("nanoseconds");
    expect(coerceEpochSeconds(1e300)).toBeUndefined();
    expect(coerceEpochSeconds(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  test("every bag the normaliser reads is bounded; the result serialises", () => {
    const d = deep(100_000);
    const e = normalizeEvent(
      {
        timestamp: 1e21,
        breadcrumbs: [{ data: d, timestamp: 1e300 }],
        user: { id: 1, data: d },
        exception: { values: [{ type: "E", mechanism: { data: d }, stacktrace: { frames: [{ vars: { v: d } }] } }] },
        whatever: d,
      },
      ctx,
    );
    expect(() => JSON.stringify(e)).not.toThrow();
    expect(JSON.stringify(e).length).toBeLessThan(20_000);
    expect(limitDepth(e, MAX_EVENT_DEPTH + 1).cut).toBe(0);
    expect(e.timestamp).toBe(ctx.receivedAt / 1000);
  });
});
