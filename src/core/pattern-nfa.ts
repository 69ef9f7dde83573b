/**
 * Glob-style patterns (grouping rules, ownership rules, CODEOWNERS) matched by simulating their
 * automaton instead of a backtracking regular expression. Admins write these patterns and the
 * digest runs them on every frame of every event: `*a*a*a*a*b` compiled to `^.*a.*a.*a.*a.*b$`
 * backtracks combinatorially (the search language hit the same: issue 39), so one rule could stall
 * the digest for minutes. Here a pattern is a short sequence of steps — one character, a run of
 * characters, an optional group — and a value is read once while the set of live steps is kept:
 * the work is at most value length × pattern length, whatever the pattern.
 */

/** Which characters a step accepts. */
export type CharTest = (ch: string) => boolean;

/** A pattern: a sequence of steps. */
export type PatternNode = { t: "char"; test: CharTest } | { t: "run"; test: CharTest } | { t: "opt"; body: PatternNode[] };

export const anyChar: CharTest = () => true;
export const notSlash: CharTest = (ch) => ch !== "/";
export const literal = (c: string): PatternNode => ({ t: "char", test: (ch) => ch === c });

type State = { t: "char" | "run"; test: CharTest } | { t: "skip"; to: number } | { t: "match" };

function flatten(nodes: PatternNode[], out: State[]): void {
  for (const n of nodes) {
    if (n.t !== "opt") {
      out.push(n);
      continue;
    }
    const skip: State = { t: "skip", to: -1 };
    out.push(skip);
    flatten(n.body, out);
    skip.to = out.length;
  }
}

export type PatternMatcher = (value: string) => boolean;

/** A matcher over the whole value (anchored at both ends), as `^…$` would be. */
export function compilePattern(nodes: PatternNode[]): PatternMatcher {
  const states: State[] = [];
  flatten(nodes, states);
  states.push({ t: "match" });
  const end = states.length - 1;
  const size = states.length;
  return (value) => {
    let current = new Uint8Array(size);
    let next = new Uint8Array(size);
    const add = (set: Uint8Array, i: number): void => {
      if (set[i]) return;
      set[i] = 1;
      const s = states[i] as State;
      if (s.t === "run") add(set, i + 1);
      else if (s.t === "skip") {
        add(set, i + 1);
        add(set, s.to);
      }
    };
    add(current, 0);
    // By UTF-16 unit, as a regular expression without the u flag reads it.
    for (let k = 0; k < value.length; k++) {
      const ch = value[k] as string;
      next.fill(0);
      let alive = false;
      for (let i = 0; i < size; i++) {
        if (!current[i]) continue;
        const s = states[i] as State;
        if (s.t === "char" && s.test(ch)) {
          add(next, i + 1);
          alive = true;
        } else if (s.t === "run" && s.test(ch)) {
          add(next, i);
          alive = true;
        }
      }
      if (!alive) return false;
      [current, next] = [next, current];
    }
    return current[end] === 1;
  };
}
