/**
 * The route table, discovered from the file system so a new route cannot be left out of the
 * isolation matrix: every page.tsx and route.ts under src/app (with the methods a route exports),
 * and every exported server action of a "use server" file, with its id from the build's manifest.
 */
import fs from "node:fs";
import path from "node:path";

export interface HttpRoute {
  kind: "page" | "route";
  /** `/[org]/issues/[id]` style, route groups removed */
  pattern: string;
  methods: string[];
  file: string;
}

export interface ServerAction {
  id: string;
  name: string;
  file: string;
  /** Parameter names in order (`_prev`, `data` for form actions). */
  params: string[];
  /** A page whose bundle includes the action (where the browser posts it). */
  pagePattern: string;
}

const METHOD_EXPORT = /export\s+(?:const|async\s+function|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/g;

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full) : [full];
  });
}

function patternOf(appDir: string, file: string): string {
  const segments = path
    .relative(appDir, path.dirname(file))
    .split(path.sep)
    .filter((s) => s && !/^\(.*\)$/.test(s));
  return `/${segments.join("/")}`;
}

export function discoverRoutes(appDir: string): HttpRoute[] {
  const routes: HttpRoute[] = [];
  for (const file of walk(appDir)) {
    if (file.includes(`${path.sep}_`)) continue; // private folders (_lib) are not routes
    const base = path.basename(file);
    if (base === "page.tsx") routes.push({ kind: "page", pattern: patternOf(appDir, file), methods: ["GET"], file });
    if (base === "route.ts") {
      const methods = [...fs.readFileSync(file, "utf8").matchAll(METHOD_EXPORT)].map((m) => m[1] as string);
      routes.push({ kind: "route", pattern: patternOf(appDir, file), methods: [...new Set(methods)], file });
    }
  }
  return routes.sort((a, b) => a.pattern.localeCompare(b.pattern));
}

type Manifest = { node: Record<string, { filename?: string; exportedName?: string; workers: Record<string, unknown> }> };

export function discoverActions(root: string): ServerAction[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, ".next/server/server-reference-manifest.json"), "utf8")) as Manifest;
  const actions: ServerAction[] = [];
  for (const file of walk(path.join(root, "src"))) {
    if (!/\.tsx?$/.test(file)) continue;
    const source = fs.readFileSync(file, "utf8");
    if (!/^\s*(?:\/\/[^\n]*\n\s*)*["']use server["']/.test(source)) continue;
    const rel = path.relative(root, file);
    for (const m of source.matchAll(/export\s+async\s+function\s+(\w+)\s*\(([^)]*)\)/g)) {
      const name = m[1] as string;
      const params = (m[2] as string)
        .split(",")
        .map((p) => p.trim().split(/[:\s=]/)[0] as string)
        .filter(Boolean);
      const entry = Object.entries(manifest.node).find(([, v]) => v.filename === rel && v.exportedName === name);
      if (!entry) throw new Error(`server action ${rel}#${name} is not in the build's manifest: rebuild (npm run build)`);
      const worker = Object.keys(entry[1].workers).find((w) => w.endsWith("/page")) ?? "app/page";
      const pagePattern = `/${worker
        .replace(/^app\/?/, "")
        .replace(/\/?page$/, "")
        .split("/")
        .filter((s) => s && !/^\(.*\)$/.test(s))
        .join("/")}`;
      actions.push({ id: entry[0], name, file: rel, params, pagePattern });
    }
  }
  return actions;
}

/** Fills `[param]` segments from a value table; unknown names throw so a new param gets a value. */
export function fill(pattern: string, values: Record<string, string>): string {
  return pattern.replace(/\[(?:\.\.\.)?(\w+)\]/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no value for route param [${name}] in ${pattern}: add it to the matrix's value table`);
    return encodeURIComponent(v);
  });
}
