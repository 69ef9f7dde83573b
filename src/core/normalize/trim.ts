/**
 * Trimming: strings cut to their Relay character limits, and data bags (Relay's `bag_size`): a
 * serialised-size budget and a depth limit.
 */

import { previewJson } from "../bounded-json";
import type { BagLimit, CharLimit } from "../event";
import type { Obj } from "./coerce";
import type { Notes } from "./notes";

/** The cut part of `trimString` without a note; undefined when `s` fits. */
export function cutString(s: string, max: number, allowance = 0): string | undefined {
  // UTF-16 length ≥ code points: a string this short fits whatever it contains.
  if (s.length <= max + allowance) return undefined;
  const chars = Array.from(s);
  if (chars.length <= max + allowance) return undefined;
  return `${chars.slice(0, Math.max(0, max - 3)).join("")}...`;
}

/**
 * Cuts a string longer than `max` (+ the limit's allowance) characters (code points) to `max`,
 * ending it with "..." like Relay, and notes it.
 */
export function trimString(s: string, limit: number | CharLimit, path: string, notes: Notes): string {
  const { max, allowance } = typeof limit === "number" ? { max: limit, allowance: 0 } : limit;
  const cut = cutString(s, max, allowance);
  if (cut === undefined) return s;
  notes.add("trimmed", path, `Cut from ${Array.from(s).length} to ${max} characters.`);
  return cut;
}

interface BagBudget {
  left: number;
  depthCut: boolean;
  sizeCut: boolean;
}

const DROP = Symbol("drop");

/**
 * Trims a JSON-like value to the budget: strings are cut to fit, nesting beyond `maxDepth`
 * becomes its JSON text, and once the budget is spent the remaining entries are dropped. Returns
 * the same reference when nothing changed (no copy for the common, small case).
 */
function trimBagValue(v: unknown, budget: BagBudget, depth: number, maxDepth: number): unknown {
  if (budget.left <= 0) {
    budget.sizeCut = true;
    return DROP;
  }
  if (typeof v === "string") {
    const cost = v.length + 2;
    if (cost <= budget.left) {
      budget.left -= cost;
      return v;
    }
    budget.sizeCut = true;
    // Not even "x..." fits: drop rather than keep a meaningless stub.
    if (budget.left < 8) {
      budget.left = 0;
      return DROP;
    }
    // Budgets count UTF-16 units (cost is v.length); cut on a code point boundary without
    // splitting the string into an array of characters (this runs on 50 KB strings).
    let end = budget.left - 5;
    const last = v.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    const cut = `${v.slice(0, end)}...`;
    budget.left = 0;
    return cut;
  }
  if (v === null || typeof v !== "object") {
    const cost = v === null || v === undefined ? 4 : String(v).length;
    if (cost > budget.left) {
      budget.left = 0;
      budget.sizeCut = true;
      return DROP;
    }
    budget.left -= cost;
    return v;
  }
  if (depth >= maxDepth) {
    budget.depthCut = true;
    // Bounded: the rest may be nested 100,000 deep or megabytes long; only `left` chars are kept.
    const text = previewJson(v, budget.left + 8) ?? "";
    return trimBagValue(text, budget, depth, maxDepth);
  }
  budget.left -= 2;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = trimBagValue(v[i], budget, depth + 1, maxDepth);
      if (item === DROP) return out ?? v.slice(0, i);
      if (item !== v[i] && !out) out = v.slice(0, i);
      if (out) out.push(item);
      budget.left -= 1;
    }
    return out ?? v;
  }
  const obj = v as Obj;
  let out: Obj | undefined;
  for (const key in obj) {
    const value = obj[key];
    budget.left -= key.length + 3;
    const item = budget.left > 0 ? trimBagValue(value, budget, depth + 1, maxDepth) : DROP;
    if ((item === DROP || item !== value) && !out) out = copyUntil(obj, key);
    if (item === DROP) return out;
    if (out) out[key] = item;
  }
  return out ?? v;
}

/** The entries of `obj` before `stop` (no Object.entries arrays on the hot path). */
function copyUntil(obj: Obj, stop: string): Obj {
  const out: Obj = {};
  for (const k in obj) {
    if (k === stop) break;
    out[k] = obj[k];
  }
  return out;
}

/** Trims a data bag; notes the path when anything changed. Undefined when nothing is left. */
export function trimBag(v: unknown, limit: BagLimit, path: string, notes: Notes): unknown {
  const budget: BagBudget = { left: limit.maxBytes, depthCut: false, sizeCut: false };
  const out = trimBagValue(v, budget, 0, limit.maxDepth);
  if (out === v) return v;
  const why: string[] = [];
  if (budget.depthCut) why.push(`nesting deeper than ${limit.maxDepth} levels was flattened to text`);
  if (budget.sizeCut) why.push(`cut to about ${limit.maxBytes} bytes`);
  notes.add("trimmed", path, `Data bag over its limit: ${why.join("; ")}.`);
  return out === DROP ? undefined : out;
}
