/**
 * The layers of docs/architecture.md, checked on every import of every source file: no import runs
 * back up a layer (storage never reaches for a service, core never for I/O), and the UI takes only
 * types from the services, so a component cannot open the database.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.dirname(new URL(import.meta.url).pathname);

/** Top-level folder (or file) of src → the top-level folders it may import. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  version: [],
  "thread-priority": [],
  config: ["core"],
  log: ["config"],
  metrics: ["config", "log"],
  net: ["config", "core", "log"],
  storage: ["core", "config", "log"],
  ingest: ["core", "storage", "config", "log", "metrics"],
  pipeline: ["core", "storage", "ingest", "net", "config", "log", "metrics", "native-heap", "thread-priority", "version"],
  server: ["core", "storage", "ingest", "net", "config", "log", "metrics", "thread-priority", "version"],
  ui: ["core", "server"],
  app: ["core", "server", "ui", "log"],
};
/** Layers that may import another only for its types (erased at build time). */
const TYPES_ONLY: Record<string, readonly string[]> = { ui: ["server"] };

interface Import {
  file: string;
  target: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".test.ts") ? [p] : [];
  });
}

function layerOf(abs: string): string {
  return path
    .relative(SRC, abs)
    .split(path.sep)[0]
    .replace(/\.tsx?$/, "");
}

function importsOf(file: string): Import[] {
  const text = fs.readFileSync(file, "utf8");
  const found: Import[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+["']([^"']+)["']/gms)) {
    const spec = m[3];
    let abs: string;
    if (spec.startsWith("@/")) abs = path.join(SRC, spec.slice(2));
    else if (spec.startsWith(".")) abs = path.resolve(path.dirname(file), spec);
    else continue;
    found.push({ file, target: abs, typeOnly: Boolean(m[2]) });
  }
  return found;
}

describe("layers", () => {
  const files = sourceFiles(SRC);

  it("finds the source tree", () => {
    expect(files.length).toBeGreaterThan(200);
  });

  it("no import runs back up a layer", () => {
    const wrong: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      const allowed = MAY_IMPORT[from];
      if (!allowed) continue; // cli and the process entry points wire everything
      for (const imp of importsOf(file)) {
        if (path.relative(SRC, imp.target).startsWith("..")) continue; // package.json and the like
        const to = layerOf(imp.target);
        if (to === from) continue;
        const ok = allowed.includes(to) && (!TYPES_ONLY[from]?.includes(to) || imp.typeOnly);
        if (!ok) wrong.push(`${path.relative(SRC, file)} → ${path.relative(SRC, imp.target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
