/**
 * What one stack frame contributes to grouping v2 (reference §7.1, Sentry's `frame:v1` with JS
 * fuzzing, native package fallback and a small set of built-in stack-trace rules). Pure; reads a
 * normalised frame, never changes it.
 */
import type { Frame } from "../../event";

export type Family = "javascript" | "native" | "other";

const JS_PLATFORMS = new Set(["javascript", "node"]);
const NATIVE_PLATFORMS = new Set(["native", "cocoa", "objc", "swift", "c"]);
const CONTEXT_LINE_PLATFORMS = new Set(["javascript", "node", "python", "php", "ruby"]);

export function familyOf(platform: string): Family {
  if (JS_PLATFORMS.has(platform)) return "javascript";
  if (NATIVE_PLATFORMS.has(platform)) return "native";
  return "other";
}

/** One contributing value of a frame, labelled for the "why grouped here" view. */
export interface FramePart {
  label: "module" | "filename" | "function" | "context" | "package";
  value: string;
}

export interface FrameGrouping {
  /** the values that contribute when the frame does, in Sentry's order */
  parts: FramePart[];
  /** false when the frame as a whole is ignored (eval, native code, recursion, rules) */
  contributes: boolean;
  /** in-app after the built-in rules (node_modules is never in-app) */
  inApp: boolean;
  /** why the frame does not contribute, when it does not */
  hint?: string;
}

const URL_ORIGIN = /^(?:https?|applewebdata|blob):/i;
const LOW_QUALITY_JS_PATHS = new Set(["[native code]", "native code", "eval code", "<anonymous>"]);
const UNKNOWN_JS_FUNCTIONS = new Set(["?", "<anonymous function>", "<anonymous>", "Anonymous function"]);
const UNKNOWN_NATIVE_FUNCTIONS = new Set(["?", "<unknown>", "<redacted>"]);
const NODE_MODULES = /[\\/]node_modules[\\/]/;
// Built-in "-group" rules (a subset of Sentry's): transpiler and polyfill helpers sit in many
// unrelated stacks and say nothing about where the error is.
const NON_GROUPING_JS = /[\\/]node_modules[\\/](?:@babel[\\/]runtime|core-js(?:-pure)?|regenerator-runtime|tslib|zone\.js)[\\/]/;
const BASENAME_SPLIT = /[/\\]/;

const basename = (path: string): string => {
  const parts = path.split(BASENAME_SPLIT);
  return parts[parts.length - 1] ?? path;
};

/** Whitespace-collapsed context line (tabs count as two spaces first, as in Sentry). */
export function collapseWhitespace(line: string): string {
  return line.replace(/\s+/g, " ").trim();
}

// Sentry's `generate_module` for browser frames: a module name that survives cache-busting hashes
// and version folders, so `/static/js/app.3f2a9c1b.js` and `/static/js/app.77d0e1aa.js` agree.
const VERSION_SEGMENT = /^(?:[a-f0-9]{32}|[a-f0-9]{40})$/i;
const CLEAN_MODULE =
  /^(?:\/|(?:(?:java)?scripts?|js|build|static|node_modules|bower_components|[_.~][^/]*|v?(?:\d+\.)*\d+|[a-f0-9]{7,8}|[a-f0-9]{32}|[a-f0-9]{40})\/)+|[-.][a-f0-9]{7,}$/gi;
const MODULE_URL = /^(?:https?|webpack|app):/i;

export function generateModule(absPath: string): string {
  let path = absPath;
  const scheme = path.indexOf("://");
  if (scheme !== -1) {
    const slash = path.indexOf("/", scheme + 3);
    path = slash === -1 ? "/" : path.slice(slash);
  } else {
    path = path.replace(/^[a-z]+:/i, "");
  }
  path = path.replace(/[?#].*$/, "");
  const dot = path.lastIndexOf(".");
  if (dot > path.lastIndexOf("/")) path = path.slice(0, dot);
  if (path.endsWith(".min")) path = path.slice(0, -4);
  const tokens = path.split("/");
  for (let i = 0; i < tokens.length; i++) {
    if (VERSION_SEGMENT.test(tokens[i] ?? "")) return tokens.slice(i + 1).join("/") || "<unknown module>";
  }
  return path.replace(CLEAN_MODULE, "") || "<unknown module>";
}

function functionName(frame: Frame, family: Family): string | undefined {
  const raw = frame.function ?? frame.raw_function;
  if (!raw) return undefined;
  if (family !== "javascript") return raw;
  const dot = raw.lastIndexOf(".");
  return dot === -1 ? raw : raw.slice(dot + 1);
}

/** True when `frame` repeats `prev` exactly (recursion): only the first of a run contributes. */
export function isRecursion(frame: Frame, prev: Frame | undefined): boolean {
  if (!prev) return false;
  return (
    frame.abs_path === prev.abs_path &&
    frame.package === prev.package &&
    frame.module === prev.module &&
    frame.filename === prev.filename &&
    frame.function === prev.function &&
    frame.lineno === prev.lineno &&
    frame.colno === prev.colno
  );
}

/** The grouping view of one frame, independent of the variant (app/system decide with `inApp`). */
export function groupFrame(frame: Frame, eventPlatform: string, prev: Frame | undefined): FrameGrouping {
  const platform = typeof frame.platform === "string" && frame.platform ? frame.platform : eventPlatform;
  const family = familyOf(platform);
  const absPath = frame.abs_path ?? "";
  const path = absPath || frame.filename || "";
  const inApp = frame.in_app === true && !(family === "javascript" && NODE_MODULES.test(path));
  const parts: FramePart[] = [];

  // module, else the file's basename (never for URLs: browser file names carry hashes and hosts)
  let module = frame.module;
  if (module === undefined && platform === "javascript" && MODULE_URL.test(absPath)) module = generateModule(absPath);
  const moduleContributes = module !== undefined && !(family === "javascript" && module.includes("/") && absPath.endsWith(module));
  if (module !== undefined && moduleContributes) parts.push({ label: "module", value: module });

  const fn = functionName(frame, family);
  let fnContributes = fn !== undefined && fn !== "";
  if (fn !== undefined) {
    if (family === "javascript" && (UNKNOWN_JS_FUNCTIONS.has(fn) || fn.endsWith("/<"))) fnContributes = false;
    else if (UNKNOWN_NATIVE_FUNCTIONS.has(fn)) fnContributes = false;
  }

  if (!moduleContributes && frame.filename) {
    const base = basename(frame.filename).toLowerCase();
    const filenameContributes =
      base !== "" &&
      !URL_ORIGIN.test(absPath) &&
      base !== "<anonymous>" &&
      base !== "[native code]" &&
      // In native code the function names the place; file paths only add build-machine noise.
      !(family === "native" && fnContributes);
    if (filenameContributes) parts.push({ label: "filename", value: base });
  }

  let context: string | undefined;
  if (CONTEXT_LINE_PLATFORMS.has(platform) && typeof frame.context_line === "string") {
    const line = collapseWhitespace(frame.context_line);
    const fromUrlWithoutFunction = family === "javascript" && !frame.function && URL_ORIGIN.test(absPath);
    // Minified lines are long and change with every build; they would split issues per deploy.
    if (line !== "" && frame.context_line.length <= 120 && !fromUrlWithoutFunction) context = line;
  }

  // Source-map function names are unreliable; the original line is the better witness.
  const sourceMapped = typeof frame.data === "object" && frame.data !== null && "sourcemap" in frame.data;
  if (fn !== undefined && fnContributes && !(sourceMapped && context !== undefined)) parts.push({ label: "function", value: fn });
  if (context !== undefined) parts.push({ label: "context", value: context });

  if (parts.length === 0 && family === "native" && frame.package) {
    // Unsymbolicated native frame: the library it is in is all we know.
    parts.push({ label: "package", value: basename(frame.package).toLowerCase() });
  }

  if (family === "javascript") {
    const rawFn = frame.raw_function ?? frame.function ?? "";
    const lastPart = rawFn.slice(rawFn.lastIndexOf(".") + 1);
    if (lastPart === "eval" || LOW_QUALITY_JS_PATHS.has(absPath)) {
      return { parts, contributes: false, inApp, hint: "low-quality JavaScript frame (eval / native code)" };
    }
    if (NON_GROUPING_JS.test(path)) return { parts, contributes: false, inApp, hint: "helper library frame (built-in rule)" };
  }
  if (isRecursion(frame, prev)) return { parts, contributes: false, inApp, hint: "recursion" };
  if (parts.length === 0) return { parts, contributes: false, inApp, hint: "nothing to group on" };
  return { parts, contributes: true, inApp };
}

/** `module=app.payments function=chargeCard context="…"` */
export function describeParts(parts: FramePart[]): string {
  return parts.map((p) => (p.label === "context" ? `context=${JSON.stringify(p.value)}` : `${p.label}=${p.value}`)).join(" ");
}
