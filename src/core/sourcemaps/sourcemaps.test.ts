import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { describe, expect, test } from "vitest";
import { CORPUS_DIR } from "../../../test/pipeline/corpus";
import { BundleError, parseBundleManifest } from "./bundle-manifest";
import { debugIdFromSource, debugIdFromSourceMap, normalizeDebugId, sourceMappingUrlFromSource } from "./debug-id";
import { openBundle } from "./read-bundle";
import { displayFilename, isVendorSource, releaseArtifactNames, resolveUrl } from "./url-paths";

const LIMITS = { maxFileSize: 1 << 20, maxFiles: 100, maxTotalSize: 4 << 20 };
const captures = (f: string) => new Uint8Array(fs.readFileSync(path.join(CORPUS_DIR, "sdk-captures", f)));
const bugsink = (f: string) => new Uint8Array(fs.readFileSync(path.join(CORPUS_DIR, "event-samples/bugsink/artifact_bundles", f)));
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("artifact bundles (both CLI flavours)", () => {
  test("sentry-cli 3.8 bundle: SYSB header, files/ prefix, deflate, bundle debug id", () => {
    const b = openBundle(captures("artifact-bundle-sentry-cli-3.8.0.zip"), LIMITS);
    expect(b.manifest).toMatchObject({ debugId: "f09e2274-6e07-5227-b1b8-727af4dc7156", org: "myorg", project: "myproj", release: null });
    const byType = Object.fromEntries(b.manifest.files.map((f) => [f.type, f]));
    expect(byType.minified_source).toMatchObject({
      entry: "files/_/_/app.min.js",
      url: "~/app.min.js",
      debugId: "f1a2e460-bef6-5dfd-8555-8a44e6be3b25",
      sourcemap: "app.min.js.map",
    });
    expect(byType.source_map).toMatchObject({
      entry: "files/_/_/app.min.js.map",
      url: "~/app.min.js.map",
      debugId: "f1a2e460-bef6-5dfd-8555-8a44e6be3b25",
    });
    const js = text(b.read("files/_/_/app.min.js"));
    expect(debugIdFromSource(js)).toBe("f1a2e460-bef6-5dfd-8555-8a44e6be3b25");
    expect(sourceMappingUrlFromSource(js)).toBe("app.min.js.map");
    expect(debugIdFromSourceMap(text(b.read("files/_/_/app.min.js.map")))).toBe("f1a2e460-bef6-5dfd-8555-8a44e6be3b25");
  });

  test("JS sentry CLI 0.49 bundle: no prefix, stored entries, `Sourcemap` header, no bundle id", () => {
    const b = openBundle(captures("artifact-bundle-sentry-js-cli-0.49.zip"), LIMITS);
    expect(b.manifest.debugId).toBeNull();
    expect(b.entries.map((e) => e.compression)).toEqual([0, 0]);
    const min = b.manifest.files.find((f) => f.type === "minified_source");
    expect(min).toMatchObject({ entry: "_/_/app.min.js", sourcemap: "app.min.js.map", debugId: "f1a23c71-8ac0-4aa0-9d21-1cb49f65d8e5" });
    // The map carries both spellings; `debugId` wins.
    expect(debugIdFromSourceMap(text(b.read("_/_/app.min.js.map")))).toBe("f1a23c71-8ac0-4aa0-9d21-1cb49f65d8e5");
  });

  test("the bugsink bundles open, including a minified file without a debug id", () => {
    const a = openBundle(bugsink("51a5a327666cf1d11e23adfd55c3becad27ae769.zip"), { ...LIMITS, maxTotalSize: 1 << 22 });
    expect(a.manifest.files.find((f) => f.url === "~/bundle.tracing.min.js")).toMatchObject({
      debugId: null,
      sourcemap: "bundle.tracing.min.js.map",
    });
    expect(a.manifest.files.filter((f) => f.debugId === "9b7990f8-1f25-571a-a422-03bea91eb8ab")).toHaveLength(3);
    const b = openBundle(bugsink("fc8564966f3dff67e1d59a984f97e0d6beb6debb.zip"), LIMITS);
    expect(b.manifest.files.map((f) => f.type).sort()).toEqual(["minified_source", "source_map"]);
  });

  test("a plain zip (no SYSB header) and a SYSB header with zip-relative offsets both open", () => {
    const manifest = {
      files: { "x/app.js.map": { type: "source_map", url: "~/app.js.map", headers: { "Debug-Id": "F1A2E460BEF65DFD85558A44E6BE3B25" } } },
    };
    const zip = zipSync({ "manifest.json": strToU8(JSON.stringify(manifest)), "x/app.js.map": strToU8("{}") });
    expect(openBundle(zip, LIMITS).manifest.files[0]?.debugId).toBe("f1a2e460-bef6-5dfd-8555-8a44e6be3b25");
    const withHeader = new Uint8Array(zip.length + 8);
    withHeader.set([0x53, 0x59, 0x53, 0x42, 2, 0, 0, 0]);
    withHeader.set(zip, 8);
    expect(text(openBundle(withHeader, LIMITS).read("x/app.js.map"))).toBe("{}");
  });

  test("corrupt, incomplete and oversized bundles are refused with a reason", () => {
    expect(() => openBundle(strToU8("SYSB\u0002\u0000\u0000\u0000not a zip at all"), LIMITS)).toThrow(/not a readable zip/);
    expect(() => openBundle(zipSync({ "a.js": strToU8("x") }), LIMITS)).toThrow(/no manifest\.json/);
    const listsMissing = zipSync({
      "manifest.json": strToU8(JSON.stringify({ files: { "gone.js": { type: "source", url: "~/gone.js" } } })),
    });
    expect(() => openBundle(listsMissing, LIMITS)).toThrow(/not in the archive/);
    const big = zipSync({
      "manifest.json": strToU8(JSON.stringify({ files: { "big.js": { type: "source", url: "~/big.js" } } })),
      "big.js": new Uint8Array(2 << 20),
    });
    expect(() => openBundle(big, LIMITS)).toThrow(BundleError);
    expect(() => openBundle(big, LIMITS)).toThrow(/limit is 1048576/);
    expect(() => openBundle(zipSync({ "manifest.json": strToU8("{nope") }), LIMITS)).toThrow(/not valid JSON/);
    expect(() => parseBundleManifest({ files: { a: { type: "weird", url: "~/a" } } })).toThrow(/unknown type/);
  });
});

describe("debug ids and paths", () => {
  test("debug ids are normalised to lower-case dashed UUIDs", () => {
    expect(normalizeDebugId("F1A2E460-BEF6-5DFD-8555-8A44E6BE3B25")).toBe("f1a2e460-bef6-5dfd-8555-8a44e6be3b25");
    expect(normalizeDebugId("f1a2e460bef65dfd85558a44e6be3b25")).toBe("f1a2e460-bef6-5dfd-8555-8a44e6be3b25");
    expect(normalizeDebugId("not-a-uuid")).toBeNull();
    expect(normalizeDebugId(42)).toBeNull();
  });

  test("release artifact names for a frame URL: exact, without query, then ~/", () => {
    expect(releaseArtifactNames("https://example.com/static/app.min.js?v=3#x")).toEqual([
      "https://example.com/static/app.min.js?v=3",
      "https://example.com/static/app.min.js",
      "~/static/app.min.js?v=3",
      "~/static/app.min.js",
    ]);
    expect(releaseArtifactNames("~/app.js")).toEqual(["~/app.js"]);
  });

  test("relative references resolve against http, ~/ and plain paths", () => {
    expect(resolveUrl("https://h/static/app.min.js", "app.min.js.map")).toBe("https://h/static/app.min.js.map");
    expect(resolveUrl("~/static/app.min.js", "../maps/app.js.map")).toBe("~/maps/app.js.map");
    expect(resolveUrl("/srv/dist/server.js", "server.js.map")).toBe("/srv/dist/server.js.map");
    expect(resolveUrl("~/a.js", "https://cdn/x.map")).toBe("https://cdn/x.map");
  });

  test("display file names drop bundler prefixes and leading ../", () => {
    expect(displayFilename("webpack://my-app/./src/components/Button.tsx")).toBe("src/components/Button.tsx");
    expect(displayFilename("webpack:///./src/x.js")).toBe("src/x.js");
    expect(displayFilename("turbopack:///[project]/app/page.tsx")).toBe("app/page.tsx");
    expect(displayFilename("../src/app.js")).toBe("src/app.js");
    expect(displayFilename("https://h/a/b.js")).toBe("a/b.js");
    expect(isVendorSource("webpack://app/./node_modules/react-dom/index.js")).toBe(true);
    expect(isVendorSource("webpack://app/webpack/bootstrap")).toBe(true);
    expect(isVendorSource("../src/app.js")).toBe(false);
  });
});
