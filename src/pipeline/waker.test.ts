import { describe, expect, test } from "vitest";
import { Waker } from "./worker";

describe("Waker", () => {
  test("reports ingest activity once per wake burst", () => {
    const w = new Waker();
    expect(w.takeActivity()).toBe(false);
    w.wake();
    w.wake();
    expect(w.takeActivity()).toBe(true);
    expect(w.takeActivity()).toBe(false);
  });

  test("a wake before the sleep makes the sleep return at once", async () => {
    const w = new Waker();
    w.wake();
    const first = await Promise.race([
      w.sleep(60_000, new AbortController().signal).then(() => "woken"),
      new Promise((resolve) => setImmediate(() => resolve("still asleep"))),
    ]);
    expect(first).toBe("woken");
  });
});
