/**
 * What one stack frame contributes to grouping v3: v2's frame view (reference §7.1) plus the
 * per-platform name cleaning Sentry's grouping does, so code generated per build or per JVM run
 * (javassist / CGLIB / Hibernate proxies, reflection accessors, Java lambdas, Clojure functions,
 * Ruby ERB templates, PHP anonymous classes) lands in the issue of the code it was generated
 * from. Unlike v2 it never invents a module from a browser URL, and in-app / not-grouped
 * decisions are left to the stack-trace rules (built-in and the project's). Native frames are
 * grouped exactly as in v2.
 */
import type { Frame } from "../../event";
import { collapseWhitespace, type Family, type FramePart, familyOf, groupFrame, isRecursion } from "./frames";

export interface FrameGroupingV3 {
  parts: FramePart[];
  contributes: boolean;
  /** why the frame does not contribute, or what was cleaned */
  hint?: string;
}

const URL_ORIGIN = /^(?:https?|applewebdata|blob):/i;
const URL_OR_FILE_ORIGIN = /^(?:https?|applewebdata|blob|file):/i;
const LOW_QUALITY_JS_PATHS = new Set(["[native code]", "native code", "eval code", "<anonymous>"]);
const UNKNOWN_JS_FUNCTIONS = new Set(["?", "<anonymous function>", "<anonymous>", "Anonymous function"]);
const CONTEXT_LINE_PLATFORMS = new Set(["javascript", "node", "python", "php", "ruby"]);
const BASENAME_SPLIT = /[/\\]/;

// Generated JVM class names: the generated part becomes `<auto>`.
const JAVA_REFLECT_CTOR = /(sun\.reflect\.Generated(?:Serialization)?ConstructorAccessor)\d+/g;
// Spring's CGLIB (`$$EnhancerBySpringCGLIB$$1ebdddb0`) and Guice's (`$$EnhancerByGuice$$…`,
// `$$FastClassByGuice$$…`, also nested) proxies.
const JAVA_CGLIB = /(\$\$(?:\w+?CGLIB|EnhancerBy\w+?|FastClassBy\w+?)\$\$)[a-fA-F0-9]+(_[0-9]+)?/g;
const JAVA_JAVASSIST = /(\$\$_javassist)(?:_seam)?(?:_[0-9]+)?/g;
const JAVA_HIBERNATE = /(\$HibernateProxy\$)\w+/g;
const CLOJURE_FN = /(\$fn__)\d+/g;
const JAVA_METHOD_ACCESSORS = ["sun.reflect.GeneratedMethodAccessor", "jdk.internal.reflect.GeneratedMethodAccessor"];
// `$$Lambda$40/0x0000000800c02a00` (Java 8–20) and `$$Lambda/0x…` (21+): new per JVM run.
const JAVA_LAMBDA_MODULE = /\$\$Lambda[$/]/;
const RUBY_ERB_SUFFIX = /__\d{4,}_\d{4,}$/;

const basename = (path: string): string => {
  const parts = path.split(BASENAME_SPLIT);
  return (parts[parts.length - 1] ?? path).toLowerCase();
};

/** A JVM module without its generated parts; `undefined` when it must not contribute at all. */
export function cleanJavaModule(module: string): { value: string | undefined; hint?: string } {
  if (JAVA_LAMBDA_MODULE.test(module)) return { value: undefined, hint: "Java lambda class ignored" };
  for (const prefix of JAVA_METHOD_ACCESSORS) {
    if (module.startsWith(prefix)) return { value: prefix, hint: "reflection accessor number removed" };
  }
  const cleaned = module
    .replace(JAVA_REFLECT_CTOR, "$1<auto>")
    .replace(JAVA_CGLIB, "$1<auto>")
    .replace(JAVA_JAVASSIST, "$1<auto>")
    .replace(JAVA_HIBERNATE, "$1<auto>")
    .replace(CLOJURE_FN, "$1<auto>");
  return cleaned === module ? { value: module } : { value: cleaned, hint: "generated class name cleaned" };
}

function functionName(frame: Frame, platform: string, family: Family): { value?: string; contributes: boolean; hint?: string } {
  // .NET SDKs put the trimmed name in `function` and the signature-bearing one in `raw_function`.
  const raw = platform === "csharp" ? (frame.raw_function ?? frame.function) : (frame.function ?? frame.raw_function);
  if (!raw) return { contributes: false };
  if (platform === "ruby") {
    if (raw.startsWith("block ")) return { value: "block", contributes: true };
    const cleaned = raw.replace(RUBY_ERB_SUFFIX, "");
    return { value: cleaned, contributes: true, hint: cleaned === raw ? undefined : "ERB template suffix removed" };
  }
  if (platform === "php") {
    if (raw.startsWith("[Anonymous") || raw.startsWith("class@anonymous\u0000")) {
      return { value: raw, contributes: false, hint: "anonymous function" };
    }
    if (raw.startsWith("class@anonymous")) {
      const method = raw.slice(raw.lastIndexOf("::") + 2);
      return { value: method, contributes: true, hint: "anonymous class method" };
    }
    return { value: raw, contributes: true };
  }
  if (platform === "java") {
    if (raw.startsWith("lambda$")) return { value: raw, contributes: false, hint: "Java lambda method ignored" };
    return { value: raw, contributes: true };
  }
  if (family === "javascript") {
    const last = raw.slice(raw.lastIndexOf(".") + 1);
    if (last === "" || UNKNOWN_JS_FUNCTIONS.has(last) || last.endsWith("/<")) return { value: last, contributes: false };
    return { value: last, contributes: true };
  }
  return { value: raw, contributes: true };
}

/** The grouping view of one frame (before stack-trace rules decide in-app and grouping). */
export function groupFrameV3(frame: Frame, eventPlatform: string, prev: Frame | undefined): FrameGroupingV3 {
  const platform = typeof frame.platform === "string" && frame.platform ? frame.platform : eventPlatform;
  const family = familyOf(platform);
  if (family === "native") {
    const g = groupFrame(frame, eventPlatform, prev);
    return { parts: g.parts, contributes: g.contributes, hint: g.hint };
  }
  const absPath = frame.abs_path ?? "";
  const parts: FramePart[] = [];
  const hints: string[] = [];

  let module: string | undefined = frame.module;
  if (module !== undefined && platform === "java") {
    const cleaned = cleanJavaModule(module);
    module = cleaned.value;
    if (cleaned.hint) hints.push(cleaned.hint);
  }
  const moduleContributes =
    module !== undefined && module !== "" && !(family === "javascript" && module.includes("/") && absPath.endsWith(module));
  if (moduleContributes) parts.push({ label: "module", value: module as string });

  const fn = functionName(frame, platform, family);
  if (fn.hint) hints.push(fn.hint);

  if (!moduleContributes && frame.filename) {
    let base = basename(frame.filename);
    if (platform === "java") base = base.replace(JAVA_JAVASSIST, "$1<auto>");
    const contributes =
      base !== "" &&
      !(family === "javascript" ? URL_ORIGIN : URL_OR_FILE_ORIGIN).test(absPath) &&
      base !== "<anonymous>" &&
      base !== "[native code]";
    if (contributes) parts.push({ label: "filename", value: base });
  }

  let context: string | undefined;
  if (CONTEXT_LINE_PLATFORMS.has(platform) && typeof frame.context_line === "string") {
    const line = collapseWhitespace(frame.context_line);
    const fromUrlWithoutFunction = family === "javascript" && !frame.function && URL_OR_FILE_ORIGIN.test(absPath);
    if (line !== "" && frame.context_line.length <= 120 && !fromUrlWithoutFunction) context = line;
  }

  const sourceMapped = typeof frame.data === "object" && frame.data !== null && "sourcemap" in frame.data;
  const fnUsed = fn.contributes && fn.value !== undefined && !(family === "javascript" && sourceMapped && context !== undefined);
  if (fnUsed) parts.push({ label: "function", value: fn.value as string });
  if (context !== undefined) parts.push({ label: "context", value: context });

  const hint = hints.length > 0 ? hints.join("; ") : undefined;
  if (family === "javascript") {
    const rawFn = frame.raw_function ?? frame.function ?? "";
    if (rawFn.slice(rawFn.lastIndexOf(".") + 1) === "eval" || LOW_QUALITY_JS_PATHS.has(absPath)) {
      return { parts, contributes: false, hint: "low-quality JavaScript frame (eval / native code)" };
    }
  }
  if (isRecursion(frame, prev)) return { parts, contributes: false, hint: "recursion" };
  if (parts.length === 0) return { parts, contributes: false, hint: hint ?? "nothing to group on" };
  return { parts, contributes: true, hint };
}
