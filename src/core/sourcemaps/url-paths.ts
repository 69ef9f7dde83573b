/**
 * Path rules for source maps: how an artifact's URL is matched against a frame's URL (`~/` = any
 * host, reference §8.7), how relative references resolve, and how an original source path is
 * shown (webpack/turbopack prefixes off) and classified (vendor code is not in-app).
 */

/** Splits `scheme://host/path?q#f`; `~/path` has host "~". Plain paths have no scheme/host. */
function splitUrl(url: string): { origin: string; path: string; query: string } {
  const noFragment = url.split("#", 1)[0] ?? "";
  const q = noFragment.indexOf("?");
  const query = q >= 0 ? noFragment.slice(q) : "";
  const base = q >= 0 ? noFragment.slice(0, q) : noFragment;
  if (base.startsWith("~/")) return { origin: "~", path: base.slice(1), query };
  const m = base.match(/^([a-z][a-z0-9+.-]*:\/\/[^/]*)(\/.*)?$/i);
  if (m) return { origin: m[1] ?? "", path: m[2] ?? "/", query };
  return { origin: "", path: base, query };
}

/**
 * Names under which a release artifact may have been uploaded for this frame URL, best first:
 * the exact URL, without query, and the `~/` host-less forms (with and without query).
 */
export function releaseArtifactNames(url: string): string[] {
  const { origin, path, query } = splitUrl(url);
  const out: string[] = [];
  const add = (s: string) => {
    if (s && !out.includes(s)) out.push(s);
  };
  if (origin && origin !== "~") {
    add(`${origin}${path}${query}`);
    add(`${origin}${path}`);
  }
  if (path.startsWith("/")) {
    add(`~${path}${query}`);
    add(`~${path}`);
  }
  if (!origin) add(path);
  return out;
}

/** Resolves `ref` (a sourceMappingURL or sourcemap header) against the URL of the file naming it. */
export function resolveUrl(base: string, ref: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref) || ref.startsWith("~/")) return ref;
  if (base.startsWith("~/")) {
    // `~` is not a scheme URL can parse: resolve under a placeholder host and put it back.
    const resolved = new URL(ref, `http://any-host${base.slice(1)}`);
    return `~${resolved.pathname}${resolved.search}`;
  }
  try {
    return new URL(ref, base).toString();
  } catch {
    // A plain path (Node frames: /app/dist/server.js).
    const dir = base.slice(0, base.lastIndexOf("/") + 1);
    const resolved = new URL(ref.startsWith("/") ? ref : `${dir}${ref}`, "file://");
    return base.startsWith("/") ? decodeURIComponent(resolved.pathname) : decodeURIComponent(resolved.pathname).replace(/^\//, "");
  }
}

const BUNDLER_PREFIX = /^(?:webpack|turbopack|rollup|vite):\/\/\/?(?:\[project\]\/|[^/]*\/)?/i;

/**
 * How an original source is shown: `webpack://app/./src/x.ts` → `src/x.ts`,
 * `turbopack:///[project]/app/page.tsx` → `app/page.tsx`, `../src/app.js` → `src/app.js`,
 * `https://host/a/b.js` → `a/b.js`.
 */
export function displayFilename(source: string): string {
  let s = source.replace(BUNDLER_PREFIX, "");
  const url = s.match(/^(?:https?|file|app):\/\/[^/]*(\/.*)$/i);
  if (url) s = url[1] ?? s;
  s = s.replace(/^\/+/, "");
  while (s.startsWith("./") || s.startsWith("../")) s = s.slice(s.startsWith("./") ? 2 : 3);
  return s === "" ? source : s;
}

/** The absolute path of an original source: absolute sources as they are, relative ones resolved against the minified file. */
export function absoluteSourcePath(source: string, minifiedUrl: string | undefined): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(source) || source.startsWith("/") || !minifiedUrl) return source;
  try {
    return resolveUrl(minifiedUrl, source);
  } catch {
    return source;
  }
}

const VENDOR = [
  /(^|[/\\])node_modules[/\\]/,
  /webpack\/bootstrap/,
  /webpack\/runtime/,
  /^\(webpack\)/,
  /\(webpack\)\//,
  /[/\\]~[/\\]/,
  /^webpack:\/\/\/webpack\//,
];

/** Third-party or bundler code: never in-app (reference §8.5 step 4). */
export function isVendorSource(source: string): boolean {
  return VENDOR.some((re) => re.test(source));
}

/** Sentry's `module` for JS: the display path without extension, for non-vendor sources. */
export function moduleFromFilename(filename: string): string | undefined {
  if (isVendorSource(filename)) return undefined;
  const clean = filename.split("?", 1)[0] ?? filename;
  const noExt = clean.replace(/\.(?:[cm]?[jt]sx?|vue|svelte|coffee)$/i, "");
  return noExt === "" ? undefined : noExt;
}
