/** One stack frame: field types, `abs_path`/`filename` and string limits. */

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

/** Relay's frame rules (reference §4.3): abs_path always set when we know a path; filename short. */
export function normalizeFrame(raw: Obj, trimmed: { count: number }): Frame {
  // Copy-on-write: most frames from SDKs are already in shape, and a stack has up to 250.
  let copy: Frame | undefined;
  const w = (): Frame => {
    copy ??= { ...raw };
    return copy;
  };
  for (const key of FRAME_STRING_KEYS) {
    const v = raw[key];
    if (v === undefined || typeof v === "string") {
      if (v === "") delete w()[key];
      continue;
    }
    if (v === null) delete w()[key];
    else w()[key] = str(v);
  }
  for (const key of ["lineno", "colno"] as const) {
    const v = raw[key];
    if (v === undefined || (typeof v === "number" && Number.isFinite(v))) continue;
    const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
    if (typeof n === "number" && Number.isFinite(n)) w()[key] = n;
    else delete w()[key];
  }
  const inApp = raw.in_app;
  if (inApp !== undefined && typeof inApp !== "boolean") {
    if (inApp === null) delete w().in_app;
    else w().in_app = inApp === 1 || inApp === "true";
  }
  const cur = (copy ?? raw) as Frame;
  if (cur.abs_path === undefined && cur.filename !== undefined) {
    w().abs_path = cur.filename;
    delete w().filename;
  }
  if ((copy ?? cur).filename === undefined && (copy ?? cur).abs_path !== undefined) {
    const abs = (copy ?? cur).abs_path as string;
    w().filename = urlPath(abs) ?? abs;
  }
  for (const [key, limit] of FRAME_FIELDS) {
    const v = (copy ?? raw)[key];
    if (typeof v !== "string") continue;
    const cut = cutString(v, limit.max, limit.allowance);
    if (cut === undefined) continue;
    w()[key] = cut;
    trimmed.count += 1;
  }
  return (copy ?? raw) as Frame;
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
