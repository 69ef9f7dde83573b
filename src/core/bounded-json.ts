/**
 * JSON shapes of any depth, handled without recursing more than a fixed number of levels.
 *
 * `JSON.parse` builds values of any depth (V8 parses iteratively), but `JSON.stringify`, the
 * scrubber, grouping and React all recurse: a body nested 100,000 deep overflows the stack in any
 * of them. So the normaliser bounds the depth of everything it keeps (`limitDepth`), and readers of
 * events stored before that bound serialise with `boundedStringify`. Pure, no I/O.
 */

type Obj = Record<string, unknown>;

/**
 * Deepest nesting kept anywhere in a stored event, counted from the event object. The deepest
 * legitimate path is a frame's variables (`exception.values.N.stacktrace.frames.N.vars.…`, 6 levels)
 * plus their own bag depth; 32 leaves room for unknown fields SDKs add.
 */
export const MAX_EVENT_DEPTH = 32;

/** What replaces a value nested past the limit: its JSON text, this long at most. */
const PREVIEW_CHARS = 200;

/** Recursion bound of `previewJson` whatever its budget: deeper values are elided as `"..."`. */
const PREVIEW_DEPTH = 64;

/**
 * The JSON text of `v` up to about `maxChars` characters (may stop a little after it; callers cut).
 * Identical to `JSON.stringify` for values within the size and `PREVIEW_DEPTH`; never overflows
 * the stack. Undefined for the values `JSON.stringify` maps to undefined.
 */
export function previewJson(v: unknown, maxChars: number): string | undefined {
  const out: string[] = [];
  const state = { len: 0, max: maxChars };
  if (!writeJson(v, out, state, 0, false)) return undefined;
  return out.join("");
}

interface WriteState {
  len: number;
  max: number;
}

function push(out: string[], state: WriteState, s: string): void {
  out.push(s);
  state.len += s.length;
}

/** Appends the JSON of `v`; false when `v` has no JSON form (undefined, functions, symbols). */
function writeJson(v: unknown, out: string[], state: WriteState, depth: number, inArray: boolean): boolean {
  if (v === null || typeof v !== "object") {
    const s = JSON.stringify(v) as string | undefined;
    if (s === undefined) {
      if (inArray) push(out, state, "null");
      return inArray;
    }
    push(out, state, s);
    return true;
  }
  if (depth >= PREVIEW_DEPTH) {
    push(out, state, '"..."');
    return true;
  }
  if (Array.isArray(v)) {
    push(out, state, "[");
    for (let i = 0; i < v.length && state.len <= state.max; i++) {
      if (i > 0) push(out, state, ",");
      writeJson(v[i], out, state, depth + 1, true);
    }
    push(out, state, "]");
    return true;
  }
  push(out, state, "{");
  let first = true;
  for (const key in v as Obj) {
    if (state.len > state.max) break;
    const value = (v as Obj)[key];
    if (value === undefined || typeof value === "function" || typeof value === "symbol") continue;
    push(out, state, `${first ? "" : ","}${JSON.stringify(key)}:`);
    first = false;
    writeJson(value, out, state, depth + 1, false);
  }
  push(out, state, "}");
  return true;
}

/**
 * `v` with every object or array nested deeper than `maxDepth` (counted from `v`) replaced by a
 * short JSON preview string. Copy-on-write: returns `v` itself when nothing was that deep, so the
 * usual event costs one walk and no allocation. `cut` counts the replaced values.
 */
export function limitDepth(v: unknown, maxDepth: number): { value: unknown; cut: number } {
  const counter = { cut: 0 };
  const value = limitValue(v, maxDepth, counter);
  return { value, cut: counter.cut };
}

function limitValue(v: unknown, depthLeft: number, counter: { cut: number }): unknown {
  if (v === null || typeof v !== "object") return v;
  if (depthLeft <= 0) {
    counter.cut += 1;
    const text = previewJson(v, PREVIEW_CHARS) ?? "";
    return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 3)}...` : text;
  }
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = limitValue(v[i], depthLeft - 1, counter);
      if (item !== v[i] && !out) out = v.slice(0, i);
      if (out) out.push(item);
    }
    return out ?? v;
  }
  let out: Obj | undefined;
  for (const key in v as Obj) {
    const value = (v as Obj)[key];
    const item = limitValue(value, depthLeft - 1, counter);
    if (item !== value && !out) out = copyBefore(v as Obj, key);
    if (out) setKey(out, key, item);
  }
  return out ?? v;
}

function copyBefore(obj: Obj, stop: string): Obj {
  const out: Obj = {};
  for (const k in obj) {
    if (k === stop) break;
    setKey(out, k, obj[k]);
  }
  return out;
}

/** Sets an own property, also for a key named `__proto__` (JSON.parse makes those own keys). */
export function setKey(obj: Obj, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/**
 * `JSON.stringify` for values that may be nested deeper than the stack allows (events stored
 * before the depth bound): values deeper than `MAX_EVENT_DEPTH` are replaced by their preview.
 */
export function boundedStringify(v: unknown, space?: number): string {
  return JSON.stringify(limitDepth(v, MAX_EVENT_DEPTH).value, null, space) ?? "null";
}
