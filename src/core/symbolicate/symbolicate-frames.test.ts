import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { CORPUS_DIR } from "../../../test/pipeline/corpus";
import type { Frame, NormalizedEvent } from "../event";
import { normalizeEvent } from "../normalize-event";
import { parseSourceMap } from "./parsed-source-map";
import { applySourceMaps, type FileResolution, restoreMinifiedFrames, sourcemapFileRefs } from "./symbolicate-frames";

const DEBUG_ID = "f1a2e460-bef6-5dfd-8555-8a44e6be3b25";
const FILE = "http://localhost:5000/dist/app.min.js";
const injectedMap = () => parseSourceMap(fs.readFileSync(path.join(CORPUS_DIR, "sdk-captures/app.min.js.map.injected"), "utf8"));

/** The reference §8.5 test vector: app.min.js after `sentry-cli sourcemaps inject`, frames outermost first. */
function vectorEvent(debugId = DEBUG_ID): NormalizedEvent {
  return normalizeEvent(
    {
      platform: "javascript",
      exception: {
        values: [
          {
            type: "Error",
            value: "boom",
            stacktrace: {
              frames: [
                { filename: FILE, abs_path: FILE, function: "Object.?", lineno: 3, colno: 55, in_app: true },
                { filename: FILE, abs_path: FILE, function: "b", lineno: 3, colno: 51, in_app: true },
                { filename: FILE, abs_path: FILE, function: "a", lineno: 3, colno: 20, in_app: true },
              ],
            },
          },
        ],
      },
      debug_meta: { images: [{ type: "sourcemap", code_file: FILE, debug_id: debugId.toUpperCase() }] },
    },
    { receivedAt: 1_700_000_000_000, clientIp: null, eventId: "0".repeat(32) },
  );
}

const frames = (e: NormalizedEvent): Frame[] => e.exception?.values[0]?.stacktrace?.frames ?? [];
const withMap = (): ((r: { debugId: string | null }) => FileResolution) => {
  const map = injectedMap();
  return (r) => (r.debugId === DEBUG_ID ? { kind: "map", map, ref: DEBUG_ID, debugId: DEBUG_ID } : { kind: "none" });
};

describe("applySourceMaps (reference §8.5)", () => {
  test("file refs come from debug_meta.images by abs_path, ids normalised", () => {
    expect(sourcemapFileRefs(vectorEvent())).toEqual([{ file: FILE, debugId: DEBUG_ID }]);
  });

  test("the test vector: positions, caller-based function names, context, raw frames kept", () => {
    const e = vectorEvent();
    const r = applySourceMaps(e, withMap());
    expect(r).toEqual({ mapped: 3, changed: true, missingDebugIds: [] });
    const [outer, b, a] = frames(e);
    expect(a).toMatchObject({
      filename: "src/app.js",
      abs_path: "http://localhost:5000/src/app.js",
      lineno: 2,
      colno: 9,
      function: "thrower",
      in_app: true,
    });
    expect(b).toMatchObject({ lineno: 5, colno: 3, function: "caller" });
    // No mapped caller: the outermost frame keeps its minified name.
    expect(outer).toMatchObject({ lineno: 7, colno: 1, function: "Object.?" });
    expect(a?.context_line).toBe('  throw new Error("boom");');
    expect(a?.pre_context).toEqual(["function thrower() {"]);
    expect(a?.post_context).toEqual(["}", "function caller() {", "  thrower();", "}", "caller();"]);
    expect(a?.data).toEqual({ sourcemap: DEBUG_ID });
    expect(a?.module).toBe("src/app");
    const raw = e.exception?.values[0]?.raw_stacktrace as { frames: Frame[] };
    expect(raw.frames.map((f) => [f.function, f.lineno, f.colno, f.filename])).toEqual([
      ["Object.?", 3, 55, FILE],
      ["b", 3, 51, FILE],
      ["a", 3, 20, FILE],
    ]);
    expect(e.errata.notes.filter((n) => n.type === "sourcemap")).toEqual([]);
  });

  test("a missing map leaves the frames, marks them, and says which debug id and file", () => {
    const e = vectorEvent();
    const r = applySourceMaps(e, (ref) => ({
      kind: "missing",
      reason: "missing_sourcemap",
      debugId: ref.debugId,
      detail: `No source map was uploaded for debug id ${ref.debugId} (file ${ref.file}).`,
    }));
    expect(r).toEqual({ mapped: 0, changed: true, missingDebugIds: [DEBUG_ID] });
    expect(frames(e).map((f) => f.function)).toEqual(["Object.?", "b", "a"]);
    expect(frames(e)[2]?.data).toEqual({ sourcemap_error: "missing_sourcemap", debug_id: DEBUG_ID });
    expect(e.exception?.values[0]?.raw_stacktrace).toBeUndefined();
    const notes = e.errata.notes.filter((n) => n.type === "sourcemap");
    expect(notes).toHaveLength(1);
    expect(notes[0]?.detail).toContain(DEBUG_ID);
    expect(notes[0]?.detail).toContain(FILE);
    expect(notes[0]?.detail).toContain("3 frames left minified");
  });

  test("a position outside the map is noted with line and column", () => {
    const e = vectorEvent();
    const f = frames(e)[2] as Frame;
    f.lineno = 1;
    f.colno = 1;
    const r = applySourceMaps(e, withMap());
    expect(r.mapped).toBe(2);
    expect(frames(e)[2]).toMatchObject({ function: "a", lineno: 1, data: { sourcemap_error: "no_mapping", debug_id: DEBUG_ID } });
    expect(e.errata.notes.find((n) => n.type === "sourcemap")?.detail).toMatch(
      /debug id f1a2e460.* has no mapping for line 1, column 1: 1 frame left minified/,
    );
  });

  test("restoreMinifiedFrames undoes it exactly (re-symbolication starts from the raw frames)", () => {
    const e = vectorEvent();
    const before = structuredClone(e);
    applySourceMaps(e, withMap());
    restoreMinifiedFrames(e);
    expect(e).toEqual(before);
    applySourceMaps(e, (ref) => ({ kind: "missing", reason: "missing_sourcemap", debugId: ref.debugId, detail: "x" }));
    restoreMinifiedFrames(e);
    expect(e).toEqual(before);
  });

  test("frames without a resolution are untouched; vendor and ignore-listed sources are not in-app", () => {
    const e = vectorEvent();
    expect(applySourceMaps(e, () => ({ kind: "none" }))).toEqual({ mapped: 0, changed: false, missingDebugIds: [] });
    const map = parseSourceMap(
      JSON.stringify({
        version: 3,
        sources: ["webpack://app/./node_modules/lib/x.js", "webpack://app/./src/y.js"],
        names: [],
        mappings: "AAAA,UCAA",
        ignoreList: [1],
      }),
    );
    const ev = normalizeEvent(
      {
        exception: {
          values: [
            {
              type: "E",
              stacktrace: {
                frames: [
                  { abs_path: "https://h/a.js", lineno: 1, colno: 1 },
                  { abs_path: "https://h/a.js", lineno: 1, colno: 11 },
                ],
              },
            },
          ],
        },
      },
      { receivedAt: 1, clientIp: null },
    );
    applySourceMaps(ev, () => ({ kind: "map", map, ref: "https://h/a.js.map", debugId: null }));
    expect(frames(ev).map((f) => [f.filename, f.in_app, f.module])).toEqual([
      ["node_modules/lib/x.js", false, undefined],
      ["src/y.js", false, undefined],
    ]);
  });

  test("index maps (sections) resolve", () => {
    const inner = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, "sdk-captures/app.min.js.map.orig"), "utf8"));
    const indexMap = parseSourceMap(JSON.stringify({ version: 3, sections: [{ offset: { line: 2, column: 0 }, map: inner }] }));
    expect(indexMap.lookup(2, 19)).toMatchObject({ source: "../src/app.js", line: 1, column: 8 });
    expect(indexMap.lookup(2, 50)?.name).toBe("thrower");
  });
});

describe("function names", () => {
  const noSources = () => {
    const json = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, "sdk-captures/app.min.js.map.injected"), "utf8"));
    delete json.sourcesContent;
    return parseSourceMap(JSON.stringify(json));
  };

  test("without sourcesContent the caller-based rule of §8.5 step 5 names the frames (the test vector)", () => {
    const e = vectorEvent();
    const map = noSources();
    applySourceMaps(e, () => ({ kind: "map", map, ref: DEBUG_ID, debugId: DEBUG_ID }));
    expect(frames(e).map((f) => [f.function, f.lineno, f.colno, f.context_line])).toEqual([
      ["Object.?", 7, 1, undefined],
      ["caller", 5, 3, undefined],
      ["thrower", 2, 9, undefined],
    ]);
  });

  test("with the source, the enclosing function wins over a caller's framework variable", () => {
    const source = 'function handleClick() {\n  throw new Error("x");\n}\nfunction dispatch(listener) {\n  listener();\n}\n';
    // gen line 1: `function a(){throw new Error("x")}function d(l){l()}` (hand-written mappings)
    const map = parseSourceMap(
      JSON.stringify({
        version: 3,
        sources: ["src/ui.js"],
        sourcesContent: [source],
        names: ["listener"],
        mappings: "AAAA,aACE,yBAGJ,mBACEA",
      }),
    );
    const ev = normalizeEvent(
      {
        exception: {
          values: [
            {
              type: "Error",
              stacktrace: {
                frames: [
                  { abs_path: "https://h/ui.js", function: "d", lineno: 1, colno: 50 },
                  { abs_path: "https://h/ui.js", function: "a", lineno: 1, colno: 14 },
                ],
              },
            },
          ],
        },
      },
      { receivedAt: 1, clientIp: null },
    );
    applySourceMaps(ev, () => ({ kind: "map", map, ref: "x", debugId: null }));
    const [dispatchFrame, thrower] = frames(ev);
    expect(dispatchFrame).toMatchObject({ lineno: 5, function: "dispatch" });
    // The caller rule alone would say "listener".
    expect(thrower).toMatchObject({ lineno: 2, function: "handleClick" });
  });
});
