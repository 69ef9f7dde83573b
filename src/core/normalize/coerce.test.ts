import { expect, test } from "vitest";
import { normalizeEvent } from "../normalize-event";
import { str } from "./coerce";

/** `depth` nested arrays around a number: deeper than JSON.stringify (or String) can recurse. */
function deepArray(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

test("a value nested deeper than the stack allows becomes a bounded preview, never a thrown overflow", () => {
  const s = str(deepArray(100_000));
  expect(s.startsWith("[[[[")).toBe(true);
  expect(s.length).toBeLessThan(10_000);
});

test("an event whose level, tag or fingerprint nests 100,000 deep is normalised (stored), with a note", () => {
  const deep = deepArray(100_000);
  const ev = normalizeEvent(
    { event_id: "a".repeat(32), level: deep, tags: { t: deep }, fingerprint: [deep] },
    { receivedAt: 0, clientIp: null },
  );
  expect(ev.level).toBe("error");
  expect(typeof ev.tags).toBe("object");
});
