/**
 * Sentry's glob patterns for grouping rules: `*` any run of characters, `?` one character,
 * `[…]` a class (`[[]` is a literal bracket). In path-like fields (`path`, `package`) `*` stops at
 * `/`, `**` crosses it, backslashes count as slashes and case is ignored; elsewhere `*` matches
 * anything and case matters.
 */

import { anyChar, compilePattern, literal, notSlash, type PatternNode } from "../../pattern-nfa";

export type GlobMatch = (value: string) => boolean;

function classAt(pattern: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (pattern[i] === "!" || pattern[i] === "^") {
    negate = true;
    i += 1;
  }
  let body = "";
  // A `]` right after the opening bracket is a member, not the end.
  if (pattern[i] === "]") {
    body += "\\]";
    i += 1;
  }
  for (; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "]") return { source: `[${negate ? "^" : ""}${body}]`, end: i };
    body += c === "\\" || c === "[" || c === "^" ? `\\${c}` : c;
  }
  return undefined;
}

/** The pattern as automaton steps (src/core/pattern-nfa.ts): no backtracking whatever it says. */
export function globNodes(pattern: string, pathLike: boolean): PatternNode[] {
  const nodes: PatternNode[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*") {
      if (pathLike && pattern[i + 1] === "*") {
        nodes.push({ t: "run", test: anyChar });
        i += 1;
      } else nodes.push({ t: "run", test: pathLike ? notSlash : anyChar });
    } else if (c === "?") nodes.push({ t: "char", test: pathLike ? notSlash : anyChar });
    else if (c === "[") {
      const cls = classAt(pattern, i);
      if (cls) {
        // One character against a bracket expression: a regular expression that cannot backtrack.
        const re = new RegExp(`^${cls.source}$`, "s");
        nodes.push({ t: "char", test: (ch) => re.test(ch) });
        i = cls.end;
      } else nodes.push(literal("["));
    } else if (pathLike && c === "\\") nodes.push(literal("/"));
    else nodes.push(literal(c));
  }
  return nodes;
}

/** The longest run of characters without wildcards: a value lacking it cannot match. */
function longestLiteral(pattern: string): string {
  let best = "";
  for (const part of pattern.split(/[*?[\]]+/)) if (part.length > best.length) best = part;
  return best;
}

/**
 * Compiles a glob. Names: a pattern without wildcards compares as a string, `prefix*` as a
 * prefix. Paths: the value must already be normalised with `normalizePath` (forward slashes,
 * lower case), and a literal part of the pattern is looked for before the automaton runs
 * — most frames fail there, cheaply.
 */
export function compileGlob(pattern: string, pathLike: boolean): GlobMatch {
  if (pathLike) {
    const normalized = normalizePath(pattern);
    if (!/[*?[]/.test(normalized)) return (v) => v === normalized;
    const needle = longestLiteral(normalized);
    const match = compilePattern(globNodes(normalized, true));
    return needle.length >= 3 ? (v) => v.includes(needle) && match(v) : match;
  }
  if (!/[*?[]/.test(pattern)) return (v) => v === pattern;
  const star = pattern.indexOf("*");
  if (star === pattern.length - 1 && !/[?[]/.test(pattern)) {
    const prefix = pattern.slice(0, -1);
    return (v) => v.startsWith(prefix);
  }
  return compilePattern(globNodes(pattern, false));
}

/** How path values are compared: forward slashes, lower case. */
export function normalizePath(path: string): string {
  return path.replace(/\\/g, "/").toLowerCase();
}
