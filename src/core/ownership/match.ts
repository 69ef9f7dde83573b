/**
 * Which ownership rules an event matches (issue 30). `path:` compares the frames' `filename` and
 * `abs_path` with a glob where `*` crosses `/` (Sentry matches with fnmatch), `module:` the frames'
 * modules, `url:` the request URL, `tags.<key>:` that tag's value, `codeowners:` the frames' paths
 * with CODEOWNERS semantics (`*` stays within a directory, a pattern without a slash matches at
 * any depth). Case-insensitive, like Sentry. The last matching rule names the owner.
 */
import type { NormalizedEvent } from "../event";
import { anyChar, compilePattern, literal, notSlash, type PatternMatcher, type PatternNode } from "../pattern-nfa";
import type { OwnershipRule } from "./rules";

export interface OwnershipFacts {
  paths: string[];
  modules: string[];
  urls: string[];
  tags: Array<[string, string]>;
}

/** Frames considered: every exception's and thread's stack trace, at most this many in total. */
const MAX_FRAMES = 500;

export function ownershipFactsOf(event: Pick<NormalizedEvent, "exception" | "threads" | "request" | "tags">): OwnershipFacts {
  const paths = new Set<string>();
  const modules = new Set<string>();
  let seen = 0;
  const stacks = [...(event.exception?.values ?? []), ...(event.threads?.values ?? [])];
  for (const s of stacks) {
    for (const f of s?.stacktrace?.frames ?? []) {
      if (++seen > MAX_FRAMES) break;
      for (const p of [f?.filename, f?.abs_path]) if (typeof p === "string" && p) for (const v of pathVariants(p)) paths.add(v);
      if (typeof f?.module === "string" && f.module) modules.add(f.module);
    }
  }
  const url = event.request?.url;
  const tags = Array.isArray(event.tags) ? event.tags.filter((t): t is [string, string] => Array.isArray(t) && t.length === 2) : [];
  return { paths: [...paths], modules: [...modules], urls: typeof url === "string" && url ? [url] : [], tags };
}

/**
 * A frame path as written and without what places it on a machine or server: `app:///`, a URL's
 * origin, `webpack://`, `~/`, `./` and a leading slash, so `src/checkout/**` matches a browser
 * frame `https://shop.example/src/checkout/pay.js` and a Node frame `/srv/app/src/checkout/pay.js`
 * matches `*\/checkout/*`.
 */
export function pathVariants(path: string): string[] {
  const p = path.replace(/\\/g, "/");
  const out = [p];
  const bare = p
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "")
    .replace(/^~\//, "")
    .replace(/^(\.\/)+/, "")
    .replace(/^\/+/, "");
  if (bare && bare !== p) out.push(bare);
  return out;
}

const cache = new Map<string, PatternMatcher>();

function compiled(kind: "glob" | "codeowners", pattern: string): PatternMatcher {
  const key = `${kind}\0${pattern}`;
  let match = cache.get(key);
  if (!match) {
    match = kind === "glob" ? globMatcher(pattern) : codeownersMatcher(pattern);
    if (cache.size > 5_000) cache.clear();
    cache.set(key, match);
  }
  return match;
}

/**
 * Case is ignored, as Sentry's ownership matching does: both sides are lowered. The patterns run as
 * automata (src/core/pattern-nfa.ts), not regular expressions: the digest runs every rule on every
 * frame, and a backtracking `*a*a*a*b` would stall it.
 */
const lowered =
  (match: PatternMatcher): PatternMatcher =>
  (value) =>
    match(value.toLowerCase());

/** fnmatch: `*` any run of characters (slashes too), `?` one character. */
export function globMatcher(pattern: string): PatternMatcher {
  const nodes: PatternNode[] = [];
  for (const ch of pattern.toLowerCase())
    nodes.push(ch === "*" ? { t: "run", test: anyChar } : ch === "?" ? { t: "char", test: anyChar } : literal(ch));
  return lowered(compilePattern(nodes));
}

/** A CODEOWNERS (gitignore-style) pattern over a repository path. */
export function codeownersMatcher(pattern: string): PatternMatcher {
  let p = pattern.replace(/\\/g, "/").toLowerCase();
  const dirOnly = p.endsWith("/");
  if (dirOnly) p = p.replace(/\/+$/, "");
  const anchored = p.startsWith("/") || p.replace(/\/\*\*$/, "").includes("/");
  p = p.replace(/^\/+/, "");
  const anyDirs: PatternNode = { t: "opt", body: [{ t: "run", test: anyChar }, literal("/")] };
  const body: PatternNode[] = [];
  for (let i = 0; i < p.length; i++) {
    const ch = p[i] as string;
    if (ch === "*" && p[i + 1] === "*") {
      // `**/` any number of directories; a trailing `**` everything below
      if (p[i + 2] === "/") {
        body.push(anyDirs);
        i += 2;
      } else {
        body.push({ t: "run", test: anyChar });
        i += 1;
      }
    } else if (ch === "*") body.push({ t: "run", test: notSlash });
    else if (ch === "?") body.push({ t: "char", test: notSlash });
    else body.push(literal(ch));
  }
  // A pattern naming a directory owns everything under it.
  const below: PatternNode = { t: "opt", body: [literal("/"), { t: "run", test: anyChar }] };
  return lowered(compilePattern([...(anchored ? [] : [anyDirs]), ...body, below]));
}

export function ruleMatches(rule: OwnershipRule, facts: OwnershipFacts): boolean {
  const { type, pattern } = rule.matcher;
  if (type === "path") {
    // A relative pattern (`src/checkout/*`) is relative to wherever the app ran, as CODEOWNERS
    // paths are: it may match from any directory of the frame's path (/srv/app/src/checkout/…).
    // An absolute one (`/srv/app/…`) or one starting with `*` is matched as written.
    const match = compiled("glob", pattern);
    const relative = !pattern.startsWith("/") && !pattern.startsWith("*");
    return facts.paths.some((v) => (relative ? repoSuffixes(v) : [v]).some((p) => match(p)));
  }
  if (type === "codeowners") {
    // CODEOWNERS paths are from the repository root, frame paths from wherever the app ran
    // (/srv/app/src/…): without a code mapping, any directory of the frame's path may be the root.
    const match = compiled("codeowners", pattern);
    return facts.paths.some((v) => repoSuffixes(v).some((p) => match(p)));
  }
  if (type === "module") return facts.modules.some((v) => compiled("glob", pattern)(v));
  if (type === "url") return facts.urls.some((v) => compiled("glob", pattern)(v));
  const key = type.slice("tags.".length);
  return facts.tags.some(([k, v]) => k === key && compiled("glob", pattern)(v));
}

/** The rules that match, in file order (the last one wins). */
export function matchingRules(rules: OwnershipRule[], facts: OwnershipFacts): OwnershipRule[] {
  return rules.filter((r) => ruleMatches(r, facts));
}

/** `a/b/c.js`, `b/c.js`, `c.js`: the path from each of its directories (at most 30). */
function repoSuffixes(path: string): string[] {
  const parts = path.replace(/^\/+/, "").split("/");
  const out: string[] = [];
  for (let i = 0; i < parts.length && out.length < 30; i++) out.push(parts.slice(i).join("/"));
  return out;
}

export interface PathHint {
  /** the frames' paths the rules were tried on (in-app frames first, the crashing one first) */
  tried: string[];
  /** a `path:` rule that would match the crashing in-app frame, or null without frame paths */
  suggestion: string | null;
}

/** What the owners box shows when no rule matches: the paths tried and a pattern that would match. */
export function pathHint(event: Pick<NormalizedEvent, "exception" | "threads">, max = 8): PathHint {
  const frames: Array<{ path: string; inApp: boolean }> = [];
  for (const s of [...(event.exception?.values ?? []), ...(event.threads?.values ?? [])]) {
    // Innermost frame last in Sentry's order: walk backwards so the crashing frame comes first.
    const list = s?.stacktrace?.frames ?? [];
    for (let i = list.length - 1; i >= 0 && frames.length < MAX_FRAMES; i--) {
      const f = list[i];
      const p = typeof f?.abs_path === "string" && f.abs_path ? f.abs_path : f?.filename;
      if (typeof p === "string" && p) frames.push({ path: p.replace(/\\/g, "/"), inApp: f?.in_app === true });
    }
  }
  const ordered = [...frames.filter((f) => f.inApp), ...frames.filter((f) => !f.inApp)];
  const tried = [...new Set(ordered.map((f) => f.path))].slice(0, max);
  const top = ordered[0]?.path;
  if (!top) return { tried, suggestion: null };
  const parts = (pathVariants(top).at(-1) ?? top).split("/").filter(Boolean);
  const dirs = parts.slice(0, -1).slice(-2);
  return { tried, suggestion: `path:${dirs.length > 0 ? `${dirs.join("/")}/*` : (parts.at(-1) ?? top)}` };
}
