/**
 * `*` wildcards of the search language (`url:*checkout*`, free text, alert rule filters) matched
 * without regular expressions. A pattern such as `*a*a*a*a*b` compiled to `^.*a.*a.*a.*a.*b$`
 * backtracks combinatorially (issue 39: 30 stars against 40 characters held the event loop for
 * 46 s), and compiling a regular expression per row cost 0.8 ms a row for a long word. Here the
 * pattern is split once into literal segments; the first must start the value, the last end it,
 * and each middle one is found left to right with indexOf. Taking the leftmost place of each middle
 * segment never loses a match (it leaves the most room for the rest), so there is no backtracking:
 * the work is one pass of indexOf per segment.
 */

export type WildcardMatcher = (value: string) => boolean;

/** A matcher for `pattern`: `*` matches any run of characters (none included), the rest literally. */
export function wildcardMatcher(pattern: string, opts: { caseInsensitive?: boolean } = {}): WildcardMatcher {
  const fold = opts.caseInsensitive === true;
  const p = fold ? pattern.toLowerCase() : pattern;
  if (!p.includes("*")) return (value) => (fold ? value.toLowerCase() : value) === p;
  const parts = p.split("*");
  const first = parts[0] as string;
  const last = parts[parts.length - 1] as string;
  const middle = parts.slice(1, -1).filter((s) => s !== "");
  const fixed = first.length + last.length;
  return (raw) => {
    const value = fold ? raw.toLowerCase() : raw;
    if (value.length < fixed || !value.startsWith(first) || !value.endsWith(last)) return false;
    const end = value.length - last.length;
    let pos = first.length;
    for (const seg of middle) {
      const at = value.indexOf(seg, pos);
      if (at === -1 || at + seg.length > end) return false;
      pos = at + seg.length;
    }
    return true;
  };
}

/** One-off match (builds the matcher each call: keep a matcher when testing many values). */
export function wildcardMatch(value: string, pattern: string, opts: { caseInsensitive?: boolean } = {}): boolean {
  return wildcardMatcher(pattern, opts)(value);
}
