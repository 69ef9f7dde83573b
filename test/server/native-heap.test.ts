/**
 * malloc_trim through koffi, in a real process: memory freed between live allocations (which
 * glibc never returns by itself, only from a heap's top) leaves RSS when trimNativeHeap runs.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { canTrimNativeHeap } from "../../src/native-heap";

const ROOT = path.resolve(import.meta.dirname, "../..");

// The child allocates 50,000 native 4 KB blocks (Buffer.allocUnsafeSlow: malloc, below the mmap
// threshold), keeps every 16th and frees the rest: ~180 MB free in 60 KB holes between pins.
const CHILD = `
import { readFileSync } from "node:fs";
import { trimNativeHeap } from "./src/native-heap.ts";
const rss = () => Number(readFileSync("/proc/self/statm", "utf8").split(" ")[1]) * 4096;
let blocks = [];
for (let i = 0; i < 50_000; i++) blocks.push(Buffer.allocUnsafeSlow(4096).fill(1));
const pins = blocks.filter((_, i) => i % 16 === 0);
blocks = null;
globalThis.gc(); globalThis.gc();
const before = rss();
const trimmed = trimNativeHeap();
const after = rss();
console.log(JSON.stringify({ before, after, trimmed, pins: pins.length }));
`;

describe.runIf(process.platform === "linux")("native heap trim (glibc)", () => {
  test("the binding loads here", () => {
    expect(canTrimNativeHeap()).toBe(true);
  });

  test("freed memory between live blocks leaves RSS", () => {
    const out = execFileSync(
      process.execPath,
      ["--expose-gc", "--single-threaded-gc", "--import", "tsx", "--input-type=module", "-e", CHILD],
      {
        cwd: ROOT,
        encoding: "utf8",
      },
    );
    const { before, after, trimmed, pins } = JSON.parse(out.trim().split("\n").pop() ?? "{}") as Record<string, number | boolean>;
    expect(pins).toBe(3125);
    expect(trimmed).toBe(true);
    // ~180 MB were free in the holes; glibc kept them until the trim.
    expect(Number(before) - Number(after)).toBeGreaterThan(100 * 1024 * 1024);
  });
});
