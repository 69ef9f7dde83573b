/** One stack frame: field types, `abs_path`/`filename` and string limits. */

import { setKey } from "../bounded-json";
import { CHAR_LIMITS, type CharLimit, type Frame } from "../event";
import { type Obj, str } from "./coerce";
import { cutString } from "./trim";

const FRAME_STRING_KEYS = ["filename", "abs_path", "function", "raw_function", "module", "package"] as const;

/** Frame strings and their Relay limits. */
const FRAME_FIELDS: Array<[string, CharLimit]> = [
  ["function", CHAR_LIMITS.symbol],
  ["raw_function", CHAR_LIMITS.symbol],
  ["abs_path", CHAR_LIMITS.path],
  ["package", CHAR_LIMITS.path],
  ["filename", CHAR_LIMITS.shortPath],
  ["module", CHAR_LIMITS.shortPath],
];

function isUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s);
}

/**
 * key → new value (undefined removes the key) of the frame being normalised. One map for every
 * frame, cleared per call (normalizeFrame is synchronous and never re-entered): a map and a
 * closure per frame were a tenth of what the digest allocates for a Node event.
 */
const patch = new Map<string, unknown>();

const NUMBER_KEYS = ["lineno", "colno"] as const;

/**
 * Relay's frame rules (reference §4.3): abs_path always set when we know a path; filename short.
 *
 * Copy-on-write: most frames are already in shape, and a stack has up to 250. Changes are collected
 * in a patch and applied to one fresh object, never by `delete` on a copy: a deleted property turns
 * an object into a slow dictionary, for every later step (scrubbing, grouping, JSON.stringify). Node
 * SDK frames all take the filename → abs_path move, so every frame of every Node event paid for it.
 */
export function normalizeFrame(raw: Obj, trimmed: { count: number }): Frame {
  patch.clear();
  for (const key of FRAME_STRING_KEYS) {
    const v = raw[key];
    if (v === undefined || typeof v === "string") {
      if (v === "") patch.set(key, undefined);
      continue;
    }
    patch.set(key, v === null ? undefined : str(v));
  }
  for (const key of NUMBER_KEYS) {
    const v = raw[key];
    if (v === undefined || (typeof v === "number" && Number.isFinite(v))) continue;
    const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
    patch.set(key, typeof n === "number" && Number.isFinite(n) ? n : undefined);
  }
  const inApp = raw.in_app;
  if (inApp !== undefined && typeof inApp !== "boolean") patch.set("in_app", inApp === null ? undefined : inApp === 1 || inApp === "true");
  const filename = patched(raw, "filename");
  if (patched(raw, "abs_path") === undefined && filename !== undefined) {
    patch.set("abs_path", filename);
    patch.set("filename", undefined);
  }
  const absPath = patched(raw, "abs_path");
  if (patched(raw, "filename") === undefined && typeof absPath === "string") patch.set("filename", urlPath(absPath) ?? absPath);
  for (const [key, limit] of FRAME_FIELDS) {
    const v = patched(raw, key);
    if (typeof v !== "string") continue;
    const cut = cutString(v, limit.max, limit.allowance);
    if (cut === undefined) continue;
    patch.set(key, cut);
    trimmed.count += 1;
  }
  return patch.size === 0 ? (raw as Frame) : applyPatch(raw);
}

/** The frame's value for `key` with the patch applied. */
function patched(raw: Obj, key: string): unknown {
  return patch.has(key) ? patch.get(key) : raw[key];
}

/** The frame's keys in their order with the patch applied, then the keys the patch adds. */
function applyPatch(raw: Obj): Frame {
  const out: Obj = {};
  for (const key in raw) {
    const v = patch.has(key) ? patch.get(key) : raw[key];
    if (v !== undefined) setKey(out, key, v);
  }
  for (const key of patch.keys()) {
    const v = patch.get(key);
    if (v !== undefined && !(key in raw)) out[key] = v;
  }
  return out as Frame;
}

function urlPath(s: string): string | undefined {
  if (!isUrl(s)) return undefined;
  try {
    const u = new URL(s);
    return u.pathname || "/";
  } catch {
    return undefined;
  }
}
