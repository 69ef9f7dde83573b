/**
 * Sentry's glob patterns for grouping rules: `*` any run of characters, `?` one character,
 * `[…]` a class (`[[]` is a literal bracket). In path-like fields (`path`, `package`) `*` stops at
 * `/`, `**` crosses it, backslashes count as slashes and case is ignored; elsewhere `*` matches
 * anything and case matters.
 */

export type GlobMatch = (value: string) => boolean;

const SPECIAL = /[\\^$.|+(){}]/;

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

export function globSource(pattern: string, pathLike: boolean): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*") {
      if (pathLike && pattern[i + 1] === "*") {
        out += ".*";
        i += 1;
      } else out += pathLike ? "[^/]*" : ".*";
    } else if (c === "?") out += pathLike ? "[^/]" : ".";
    else if (c === "[") {
      const cls = classAt(pattern, i);
      if (cls) {
        out += cls.source;
        i = cls.end;
      } else out += "\\[";
    } else if (c === "]") out += "\\]";
    else if (pathLike && c === "\\") out += "/";
    else out += SPECIAL.test(c) ? `\\${c}` : c;
  }
  return out;
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
 * lower case), and a literal part of the pattern is looked for before the regular expression runs
 * — most frames fail there, cheaply.
 */
export function compileGlob(pattern: string, pathLike: boolean): GlobMatch {
  if (pathLike) {
    const normalized = normalizePath(pattern);
    if (!/[*?[]/.test(normalized)) return (v) => v === normalized;
    const literal = longestLiteral(normalized);
    const re = new RegExp(`^${globSource(normalized, true)}$`, "s");
    return literal.length >= 3 ? (v) => v.includes(literal) && re.test(v) : (v) => re.test(v);
  }
  if (!/[*?[]/.test(pattern)) return (v) => v === pattern;
  const star = pattern.indexOf("*");
  if (star === pattern.length - 1 && !/[?[]/.test(pattern)) {
    const prefix = pattern.slice(0, -1);
    return (v) => v.startsWith(prefix);
  }
  const re = new RegExp(`^${globSource(pattern, false)}$`, "s");
  return (v) => re.test(v);
}

/** How path values are compared: forward slashes, lower case. */
export function normalizePath(path: string): string {
  return path.replace(/\\/g, "/").toLowerCase();
}
