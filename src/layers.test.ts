/**
 * The layers of docs/architecture.md, checked on every import of every source file:
 * - no import runs back up a layer (storage never reaches for a service, core never for I/O), and
 *   the UI takes only types from the services, so a component cannot open the database;
 * - the read side (server, app, ui) never imports `ingest/`, the write path: Sentry's REST
 *   compatibility lives in `server/sentry-api/`, parsers both sides need in `core/`;
 * - a UI folder imports the kit (`ui/kit/`) and its own domain, never another domain's folder, and
 *   the kit imports no domain: a part used by one domain lives beside it;
 * - no file imports itself back through others (types included): a circle means two files that
 *   should have been one, or a piece in the wrong one;
 * - the grouped layers keep their folders small enough to read (~15 files).
 * Each rule is a function over the import graph, and each is shown failing on a planted violation.
 */
import fs from "node:fs";
import os from "node:os";
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
  server: ["core", "storage", "net", "config", "log", "metrics", "thread-priority", "version"],
  ui: ["core", "server"],
  app: ["core", "server", "ui", "log"],
};
/** Layers that may import another only for its types (erased at build time). */
const TYPES_ONLY: Record<string, readonly string[]> = { ui: ["server"] };
/** The write path, which the read side never imports. */
const READ_SIDE = ["server", "app", "ui"];
/** The UI's shared kit: imported by every domain folder, importing none. */
const UI_KIT = "kit";
/** Folders held to the house's size, and the few exempt below them. */
const SMALL_FOLDERS = ["ui", "server", "storage"];
const MAX_FILES = 15;
const SIZE_EXEMPT = new Set(["storage/migrations"]);

interface Import {
  file: string;
  target: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

const rel = (abs: string) => path.relative(SRC, abs);

function layerOf(abs: string): string {
  return rel(abs)
    .split(path.sep)[0]
    .replace(/\.tsx?$/, "");
}

/** `ui/issues/stream/row.ts` → "issues"; a file at the top of ui/ → "" (none may live there). */
function uiDomainOf(abs: string): string {
  const parts = rel(abs).split(path.sep);
  return parts[0] === "ui" && parts.length > 2 ? parts[1] : "";
}

function resolveFile(abs: string): string {
  for (const candidate of [abs, `${abs}.ts`, `${abs}.tsx`, path.join(abs, "index.ts")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return abs;
}

function importsOf(file: string): Import[] {
  const text = fs.readFileSync(file, "utf8");
  const found: Import[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    let abs: string;
    if (spec.startsWith("@/")) abs = path.join(SRC, spec.slice(2));
    else if (spec.startsWith(".")) abs = path.resolve(path.dirname(file), spec);
    else return;
    found.push({ file, target: resolveFile(abs), typeOnly });
  };
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+["']([^"']+)["']/gms)) add(m[3], Boolean(m[2]));
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) add(m[1], false);
  return found;
}

/** Imports that run against the layer table. */
function layerViolations(imports: readonly Import[]): string[] {
  const wrong: string[] = [];
  for (const imp of imports) {
    const from = layerOf(imp.file);
    const allowed = MAY_IMPORT[from];
    if (!allowed) continue; // cli and the process entry points wire everything
    if (rel(imp.target).startsWith("..")) continue; // package.json and the like
    const to = layerOf(imp.target);
    if (to === from) continue;
    const ok = allowed.includes(to) && (!TYPES_ONLY[from]?.includes(to) || imp.typeOnly);
    if (!ok) wrong.push(`${rel(imp.file)} → ${rel(imp.target)}`);
  }
  return wrong;
}

/** Imports of the write path from the read side, types included (a type there is REST code there). */
function readSideIngestImports(imports: readonly Import[]): string[] {
  return imports
    .filter((imp) => READ_SIDE.includes(layerOf(imp.file)) && layerOf(imp.target) === "ingest")
    .map((imp) => `${rel(imp.file)} → ${rel(imp.target)}`);
}

/** UI imports across domain folders, from the kit into a domain, and files loose at the top of ui/. */
function uiViolations(imports: readonly Import[]): string[] {
  const wrong: string[] = [];
  for (const imp of imports) {
    if (layerOf(imp.file) !== "ui") continue;
    const from = uiDomainOf(imp.file);
    if (from === "") {
      wrong.push(`${rel(imp.file)}: a UI file belongs in a domain folder or the kit`);
      continue;
    }
    if (layerOf(imp.target) !== "ui") continue;
    const to = uiDomainOf(imp.target);
    if (to === from || (to === UI_KIT && from !== UI_KIT)) continue;
    wrong.push(`${rel(imp.file)} → ${rel(imp.target)}`);
  }
  return wrong;
}

/** Every circle of imports (strongly connected files, Tarjan), each as its files in order. */
function circles(imports: readonly Import[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const imp of imports) {
    if (!edges.has(imp.file)) edges.set(imp.file, []);
    edges.get(imp.file)?.push(imp.target);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const members: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      members.push(rel(w));
    } while (w !== v);
    if (members.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(members.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Folders of the grouped layers with more files than a reader takes in at once. */
function crowdedFolders(root = SRC): string[] {
  const crowded: string[] = [];
  const walk = (dir: string) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    const files = entries.filter((e) => e.isFile()).length;
    const name = path.relative(root, dir);
    if (files > MAX_FILES && !SIZE_EXEMPT.has(name)) crowded.push(`${name}: ${files} files`);
    for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name));
  };
  for (const top of SMALL_FOLDERS) if (fs.existsSync(path.join(root, top))) walk(path.join(root, top));
  return crowded;
}

/** A planted import: `from` and `to` are paths under src/, as if `from` imported `to`. */
const plant = (from: string, to: string, typeOnly = false): Import => ({
  file: path.join(SRC, from),
  target: path.join(SRC, to),
  typeOnly,
});

describe("layers", () => {
  const files = sourceFiles(SRC);
  const imports = files.flatMap(importsOf);

  it("finds the source tree", () => {
    expect(files.length).toBeGreaterThan(200);
    expect(imports.length).toBeGreaterThan(1000);
  });

  it("no import runs back up a layer", () => {
    expect(layerViolations(imports)).toEqual([]);
  });

  it("the read side never imports the write path (ingest/)", () => {
    expect(readSideIngestImports(imports)).toEqual([]);
  });

  it("UI folders import the kit and their own domain; the kit imports no domain", () => {
    expect(uiViolations(imports)).toEqual([]);
  });

  it("no circle between files", () => {
    expect(circles(imports)).toEqual([]);
  });

  it(`ui/, server/ and storage/ folders hold at most ${MAX_FILES} files`, () => {
    expect(crowdedFolders()).toEqual([]);
  });
});

describe("each rule catches a planted violation", () => {
  it("a storage file importing a service", () => {
    expect(layerViolations([plant("storage/issues/issues.ts", "server/issues/actions.ts")])).toHaveLength(1);
  });

  it("a component importing a service's value (types are fine)", () => {
    expect(layerViolations([plant("ui/issues/header.tsx", "server/issues/stream.ts")])).toHaveLength(1);
    expect(layerViolations([plant("ui/issues/header.tsx", "server/issues/stream.ts", true)])).toEqual([]);
  });

  it("the read side importing ingest, even for a type", () => {
    expect(readSideIngestImports([plant("server/issues/rest-list.ts", "ingest/parse-envelope.ts", true)])).toHaveLength(1);
    expect(readSideIngestImports([plant("app/api/0/route.ts", "ingest/accept.ts")])).toHaveLength(1);
    expect(readSideIngestImports([plant("pipeline/digest-batch.ts", "ingest/parse-envelope.ts")])).toEqual([]);
  });

  it("one UI domain importing another, the kit importing a domain, a loose UI file", () => {
    expect(uiViolations([plant("ui/alerts/forms.tsx", "ui/monitors/parts.tsx")])).toHaveLength(1);
    expect(uiViolations([plant("ui/kit/format.ts", "ui/issues/header.tsx")])).toHaveLength(1);
    expect(uiViolations([plant("ui/loose.tsx", "ui/kit/format.ts")])).toHaveLength(1);
    expect(uiViolations([plant("ui/issues/stream/row.ts", "ui/issues/triage/kit.tsx")])).toEqual([]);
    expect(uiViolations([plant("ui/alerts/forms.tsx", "ui/kit/format.ts")])).toEqual([]);
  });

  it("a circle of two files, of three, and a file importing itself", () => {
    expect(circles([plant("storage/db.ts", "storage/queue/file.ts"), plant("storage/queue/file.ts", "storage/db.ts", true)])).toHaveLength(
      1,
    );
    expect(
      circles([plant("server/a.ts", "server/b.ts"), plant("server/b.ts", "server/c.ts"), plant("server/c.ts", "server/a.ts", true)]),
    ).toEqual([["server/a.ts", "server/b.ts", "server/c.ts"]]);
    expect(circles([plant("server/a.ts", "server/a.ts")])).toHaveLength(1);
    expect(circles([plant("server/a.ts", "server/b.ts"), plant("server/b.ts", "server/c.ts")])).toEqual([]);
  });

  it("a crowded UI folder", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "layers-"));
    try {
      fs.mkdirSync(path.join(root, "ui", "issues"), { recursive: true });
      for (let i = 0; i <= MAX_FILES; i++) fs.writeFileSync(path.join(root, "ui", "issues", `part-${i}.tsx`), "");
      expect(crowdedFolders(root)).toEqual([`ui/issues: ${MAX_FILES + 1} files`]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
