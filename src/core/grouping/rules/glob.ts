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

/** Compiles a glob; a pattern without wildcards compares as a plain string (the common case). */
export function compileGlob(pattern: string, pathLike: boolean): GlobMatch {
  const normalized = pathLike ? pattern.replace(/\\/g, "/") : pattern;
  if (!/[*?[]/.test(normalized)) {
    if (!pathLike) return (v) => v === normalized;
    const lower = normalized.toLowerCase();
    return (v) => v.replace(/\\/g, "/").toLowerCase() === lower;
  }
  const re = new RegExp(`^${globSource(normalized, pathLike)}$`, pathLike ? "is" : "s");
  return pathLike ? (v) => re.test(v.replace(/\\/g, "/")) : (v) => re.test(v);
}
