/**
 * The Node versions Errata says it supports (`engines` in package.json) are versions every
 * installed dependency accepts, so `npm install` there prints no EBADENGINE warning; Node 20 (past
 * its end of life, and refused by better-sqlite3 and kysely) is not among them. Checked from the
 * lock file against the lowest version of each supported line, with a small reading of the
 * range syntax the lock's `engines` use.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ROOT } from "../helpers/server.js";

type V = [number, number, number];
const INF = Number.MAX_SAFE_INTEGER;

/** A partial version (`20`, `20.x`, `1.2.*`): its known parts, the rest wildcards. */
function partial(s: string): number[] {
  const parts = s.replace(/^v/, "").split(".");
  const out: number[] = [];
  for (const p of parts) {
    if (p === "x" || p === "X" || p === "*" || p === "") break;
    if (!/^\d+$/.test(p)) throw new Error(`cannot read version "${s}"`);
    out.push(Number(p));
  }
  return out;
}
const full = (p: number[]): V => [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0];
/** The first version after everything the partial version names (`20` → 21.0.0, `20.1` → 20.2.0). */
const after = (p: number[]): V => (p.length === 0 ? [INF, 0, 0] : full([...p.slice(0, -1), (p.at(-1) ?? 0) + 1]));
const cmp = (a: V, b: V) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

function comparator(c: string, v: V): boolean {
  const m = /^(\^|~|>=|<=|>|<|=)?(.*)$/.exec(c) as RegExpExecArray;
  const op = m[1] ?? "";
  const p = partial(m[2] ?? "");
  const lo = full(p);
  if (op === "^") return cmp(v, lo) >= 0 && cmp(v, after(p.slice(0, Math.max(1, p.findIndex((n) => n !== 0) + 1 || 1)))) < 0;
  if (op === "~") return cmp(v, lo) >= 0 && cmp(v, after(p.slice(0, Math.max(1, Math.min(2, p.length))))) < 0;
  if (op === ">=") return cmp(v, lo) >= 0;
  if (op === ">") return p.length < 3 ? cmp(v, after(p)) >= 0 : cmp(v, lo) > 0;
  if (op === "<") return cmp(v, lo) < 0;
  if (op === "<=") return p.length < 3 ? cmp(v, after(p)) < 0 : cmp(v, lo) <= 0;
  return p.length < 3 ? cmp(v, lo) >= 0 && cmp(v, after(p)) < 0 : cmp(v, lo) === 0;
}

/** node-semver's `satisfies` for the forms engines use: `||`, space-joined comparators, x-ranges, caret, tilde. */
function satisfies(version: string, range: string): boolean {
  const v = full(partial(version));
  return range.split("||").some((alt) => {
    const comparators = alt
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean);
    return comparators.every((c) => c === "*" || comparator(c, v));
  });
}

/** The lowest version each alternative of a range admits (`^22.12.0 || >=24.0.0` → 22.12.0, 24.0.0). */
function lowest(range: string): string[] {
  return range.split("||").map((alt) =>
    full(
      partial(
        alt
          .trim()
          .replace(/^(\^|~|>=|=)\s*/, "")
          .split(/\s+/)[0] ?? "",
      ),
    ).join("."),
  );
}

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { engines?: { node?: string }; os?: string[]; cpu?: string[]; optional?: boolean }>;
};

describe("supported Node versions", () => {
  test("the range reader agrees with node-semver on the forms in the lock", () => {
    expect(satisfies("22.12.0", ">=22")).toBe(true);
    expect(satisfies("20.20.2", ">=22.0.0")).toBe(false);
    expect(satisfies("22.12.0", "^20.19.0 || ^22.13.0 || >=23.5.0")).toBe(false);
    expect(satisfies("24.0.0", "^20.19.0 || ^22.13.0 || >=23.5.0")).toBe(true);
    expect(satisfies("22.1.0", ">=20.19.0 <22.0.0 || >=22.12.0 <23.0.0 || >=23.2.0")).toBe(false);
    expect(satisfies("24.0.0", "20.x || 22.x || 23.x || 24.x || 25.x || 26.x")).toBe(true);
    expect(satisfies("22.0.0", ">=16 || 14 >=14.17")).toBe(true);
    expect(satisfies("14.16.0", ">=16 || 14 >=14.17")).toBe(false);
    expect(satisfies("22.0.0", "10.* || >= 12.*")).toBe(true);
    expect(satisfies("22.0.0", "^20.9.0")).toBe(false);
    expect(satisfies("22.0.0", ">= 0.10")).toBe(true);
    expect(satisfies("22.0.0", "*")).toBe(true);
  });

  test("22 and 24 are supported, 20 is not; every dependency installed on Linux accepts each supported line's first version", () => {
    const range = pkg.engines.node;
    expect(satisfies("20.19.0", range)).toBe(false);
    expect(satisfies("22.12.0", range) && satisfies("24.0.0", range)).toBe(true);
    expect(lock.packages[""]?.engines?.node).toBe(range);
    const refusals: string[] = [];
    for (const version of lowest(range)) {
      for (const [where, p] of Object.entries(lock.packages)) {
        const wants = p.engines?.node;
        if (!where || !wants) continue;
        // Platform packages npm skips here (Windows, macOS, wasm builds and what only they need)
        // are never checked by it: an optional package it did not install is left out.
        if ((p.os && !p.os.includes("linux")) || (p.cpu && !p.cpu.includes("x64"))) continue;
        if (p.optional && !fs.existsSync(path.join(ROOT, where))) continue;
        if (!satisfies(version, wants)) refusals.push(`${where.replace(/^node_modules\//, "")} wants ${wants}, not ${version}`);
      }
    }
    expect(refusals).toEqual([]);
  });
});
