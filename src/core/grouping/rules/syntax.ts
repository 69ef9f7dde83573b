/**
 * The line syntax shared by Sentry's stack-trace rules and fingerprint rules: one rule a line,
 * `#` comments, matchers `[!]key:value` (value quoted with `"…"` when it has spaces), and the
 * punctuation `[`, `]`, `|`, `->`, `,`.
 */

export interface RuleError {
  /** 1-based line in the text the user wrote */
  line: number;
  message: string;
}

export type Token =
  /** `quoted`: the word starts with a quote (a literal value, never an attribute) */
  { kind: "word"; text: string; quoted: boolean } | { kind: "punct"; text: "[" | "]" | "|" | "->" | "," };

export class RuleSyntaxError extends Error {}

const WS = /\s/;

/** Splits one line into tokens; `#` outside quotes ends it. Throws RuleSyntaxError on bad quoting. */
export function tokenize(line: string, commaIsPunct: boolean): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i] as string;
    if (WS.test(c)) {
      i += 1;
      continue;
    }
    if (c === "#") break;
    if (c === "[" || c === "]" || c === "|" || (c === "," && commaIsPunct)) {
      out.push({ kind: "punct", text: c });
      i += 1;
      continue;
    }
    if (c === "-" && line[i + 1] === ">") {
      out.push({ kind: "punct", text: "->" });
      i += 2;
      continue;
    }
    let text = "";
    let quoted = false;
    const leadingQuote = c === '"';
    while (i < line.length) {
      const d = line[i] as string;
      if (WS.test(d) || (d === "," && commaIsPunct) || (d === "]" && !quoted && text !== "")) break;
      if (d === "-" && line[i + 1] === ">") break;
      if (d === '"') {
        quoted = true;
        i += 1;
        let closed = false;
        while (i < line.length) {
          const q = line[i] as string;
          if (q === "\\" && i + 1 < line.length) {
            text += line[i + 1];
            i += 2;
            continue;
          }
          if (q === '"') {
            closed = true;
            i += 1;
            break;
          }
          text += q;
          i += 1;
        }
        if (!closed) throw new RuleSyntaxError("unterminated quoted value");
        continue;
      }
      text += d;
      i += 1;
    }
    out.push({ kind: "word", text, quoted: leadingQuote });
  }
  return out;
}

/** Lines of a rule text with their 1-based numbers, blank and comment-only lines left out. */
export function ruleLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const t = raw.trim();
    if (t === "" || t.startsWith("#")) return;
    out.push({ line: i + 1, text: t });
  });
  return out;
}

/** `[!]key:value` → parts, or undefined when the word is not a matcher. */
export function splitMatcher(word: string): { negated: boolean; key: string; value: string } | undefined {
  const negated = word.startsWith("!");
  const body = negated ? word.slice(1) : word;
  const colon = body.indexOf(":");
  if (colon <= 0) return undefined;
  return { negated, key: body.slice(0, colon), value: body.slice(colon + 1) };
}
