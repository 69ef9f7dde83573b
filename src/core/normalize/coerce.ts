/** Coercion helpers shared by the normalisation modules: SDK payloads are JSON of any shape. */

import { previewJson } from "../bounded-json";
import type { Notes } from "./notes";

/** What a value too deep for JSON.stringify becomes in a string field (depth-bounded preview). */
const DEEP_PREVIEW_CHARS = 8192;

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Stringifies a scalar for fields that must be strings (tags, ids); objects become JSON. */
export function str(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (typeof v === "object") {
    try {
      return JSON.stringify(v);
    } catch {
      // Nested deeper than the stack allows (String() of an array recurses too): a bounded
      // preview, so an event acknowledged by ingest is stored rather than dropped by the digest.
      return previewJson(v, DEEP_PREVIEW_CHARS) ?? "";
    }
  }
  return String(v);
}

/** `{values: [...]}` or a bare list → the list (callers drop its null entries). */
export function valuesOf(v: unknown, path: string, notes: Notes): { values: unknown[]; rest: Obj } | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return { values: v, rest: {} };
  if (isObj(v)) {
    const { values, ...rest } = v;
    if (Array.isArray(values)) return { values, rest };
    if (values === undefined || values === null) return { values: [], rest };
  }
  notes.add("dropped", path, `\`${path}\` is neither a list nor {values: [...]}.`);
  return undefined;
}
