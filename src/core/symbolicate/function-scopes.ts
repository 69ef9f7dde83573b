/**
 * The function that encloses a position in an ORIGINAL source (from `sourcesContent`): a small,
 * forgiving scanner for JS/TS/JSX that finds brace-bodied functions and their names —
 * `function f() {`, `f = function () {`, `f: () => {`, `const f = async (x): T => {`, methods
 * `f(x) {` / `async f(): T {`. Strings, comments, template literals and regex literals are
 * skipped; quotes end at the line's end, so an apostrophe in JSX text cannot swallow the file.
 *
 * Why: a frame's name is the name of the function it runs in. The mapping name at a call site
 * (the caller-based rule, reference §8.5 step 5) is the callee's identifier in the caller's code,
 * and when the caller is framework code (React invoking a click handler) that identifier is a
 * framework variable. The enclosing function in the original source is what the developer wrote.
 */

export interface FunctionScope {
  /** offset of the body's `{` */
  start: number;
  /** offset of the matching `}` (end of text when unclosed) */
  end: number;
  /** null: an anonymous function */
  name: string | null;
}

type Tok = { t: "id" | "p"; v: string };

const BLOCK_KEYWORDS = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "with",
  "case",
  "return",
  "typeof",
  "await",
  "yield",
  "new",
  "function",
]);
const REGEX_AFTER_KEYWORDS = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "yield",
  "await",
]);
// Character classes by code (a regex test per character made the scan 5x slower).
const isIdentStart = (cc: number) => (cc >= 97 && cc <= 122) || (cc >= 65 && cc <= 90) || cc === 95 || cc === 36 || cc >= 0xc0;
const isIdentPart = (cc: number) => isIdentStart(cc) || (cc >= 48 && cc <= 57);
const MODIFIERS = new Set(["async", "static", "get", "set", "public", "private", "protected", "readonly", "override", "abstract", "*"]);

/** Function scopes of a source, ordered by start. Linear in the text; run once per source and cache. */
export function functionScopes(text: string): FunctionScope[] {
  const toks: Tok[] = [];
  const scopes: FunctionScope[] = [];
  // Open braces: a function body (with its name), a plain block, or a template's `${`.
  const braces: Array<{ start: number; fn: boolean; name: string | null; template: boolean }> = [];
  const n = text.length;
  let i = 0;

  const skipLine = () => {
    while (i < n && text[i] !== "\n") i++;
  };
  const skipQuoted = (q: string) => {
    i++;
    while (i < n && text[i] !== q && text[i] !== "\n") i += text[i] === "\\" ? 2 : 1;
    i++;
  };
  /** Template text up to its closing backtick, or up to a `${` (then a template brace is pushed). */
  const skipTemplate = (): void => {
    while (i < n) {
      const c = text[i];
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "`") {
        i++;
        return;
      }
      if (c === "$" && text[i + 1] === "{") {
        braces.push({ start: i + 1, fn: false, name: null, template: true });
        i += 2;
        return;
      }
      i++;
    }
  };
  const regexAllowed = (): boolean => {
    const prev = toks[toks.length - 1];
    if (!prev) return true;
    if (prev.t === "id") return REGEX_AFTER_KEYWORDS.has(prev.v);
    return !(prev.v === ")" || prev.v === "]" || prev.v === "}");
  };
  const skipRegex = () => {
    i++;
    let inClass = false;
    while (i < n && text[i] !== "\n") {
      const c = text[i];
      if (c === "\\") {
        i += 2;
        continue;
      }
      i++;
      if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) break;
    }
    while (i < n && isIdentPart(text.charCodeAt(i))) i++;
  };

  while (i < n) {
    // Only the recent tokens matter (a function head is a few dozen back): keep the array small.
    if (toks.length > 8192) toks.splice(0, 4096);
    const c = text[i] as string;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
    } else if (c === "/" && text[i + 1] === "/") {
      skipLine();
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '"' || c === "'") {
      skipQuoted(c);
      toks.push({ t: "id", v: "\u0000str" });
    } else if (c === "`") {
      i++;
      skipTemplate();
      toks.push({ t: "id", v: "\u0000str" });
    } else if (c === "/" && regexAllowed()) {
      skipRegex();
      toks.push({ t: "id", v: "\u0000re" });
    } else if (isIdentStart(c.charCodeAt(0))) {
      const s = i;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      toks.push({ t: "id", v: text.slice(s, i) });
    } else if (c >= "0" && c <= "9") {
      while (i < n && (isIdentPart(text.charCodeAt(i)) || text[i] === ".")) i++;
      toks.push({ t: "id", v: "\u0000num" });
    } else if (c === "{") {
      const head = functionHead(toks);
      braces.push({ start: i, fn: head !== undefined, name: head ?? null, template: false });
      toks.push({ t: "p", v: "{" });
      i++;
    } else if (c === "}") {
      const open = braces.pop();
      i++;
      if (open?.template) {
        skipTemplate();
        continue;
      }
      if (open?.fn) scopes.push({ start: open.start, end: i - 1, name: open.name });
      toks.push({ t: "p", v: "}" });
    } else if (c === "=" && text[i + 1] === ">") {
      toks.push({ t: "p", v: "=>" });
      i += 2;
    } else {
      toks.push({ t: "p", v: c });
      i++;
    }
  }
  for (const open of braces) if (open.fn) scopes.push({ start: open.start, end: n, name: open.name });
  return scopes.sort((a, b) => a.start - b.start);
}

/**
 * Is the `{` about to be pushed a function body? Returns its name (null: anonymous), or
 * undefined for a block, object literal or class body.
 */
function functionHead(toks: Tok[]): string | null | undefined {
  let k = toks.length - 1;
  const at = (j: number) => toks[j];
  // `(…): Type {` or `(…): Type =>`: jump back over a return-type annotation to its `)`.
  const overReturnType = (from: number): number => {
    for (let j = from, steps = 0; j > 0 && steps < 40; j--, steps++) {
      const tk = at(j);
      if (!tk || (tk.t === "p" && (tk.v === ";" || tk.v === "{" || tk.v === "}" || tk.v === "="))) return from;
      if (tk.t === "p" && tk.v === ":" && at(j - 1)?.v === ")") return j - 1;
    }
    return from;
  };
  const matchingParen = (close: number): number => {
    let depth = 0;
    for (let j = close; j >= 0; j--) {
      const v = at(j)?.v;
      if (v === ")") depth++;
      else if (v === "(" && --depth === 0) return j;
    }
    return -1;
  };
  /** The name an expression function gets from `name =`, `name:` or nothing (anonymous). */
  const assignedName = (j: number): string | null => {
    let p = j;
    while (at(p)?.v === "async") p--;
    const op = at(p);
    const target = at(p - 1);
    if (op?.t === "p" && (op.v === "=" || op.v === ":") && target?.t === "id" && !target.v.startsWith("\u0000")) return target.v;
    return null;
  };

  let prev = at(k);
  if (!prev) return undefined;
  if (prev.t === "id" && (prev.v === "else" || prev.v === "try" || prev.v === "finally" || prev.v === "do")) return undefined;

  if (prev.v === "=>") {
    // Arrow with a block body: params are `x` or `(…)`, maybe typed.
    let j = overReturnType(k - 1);
    const p = at(j);
    if (p?.v === ")") j = matchingParen(j) - 1;
    else if (p?.t === "id") j -= 1;
    else return null;
    return assignedName(j);
  }

  k = overReturnType(k);
  prev = at(k);
  if (prev?.v !== ")") return undefined;
  const open = matchingParen(k);
  if (open < 0) return undefined;
  let j = open - 1;
  // Generic parameters `f<T>(…)`.
  if (at(j)?.v === ">") {
    let depth = 0;
    for (; j >= 0; j--) {
      if (at(j)?.v === ">") depth++;
      else if (at(j)?.v === "<" && --depth === 0) {
        j--;
        break;
      }
    }
  }
  const before = at(j);
  if (!before) return undefined;
  if (before.t === "id" && before.v === "function") return assignedName(j - 1);
  if (before.v === "*" && at(j - 1)?.v === "function") return assignedName(j - 2);
  if (before.t === "p" && before.v === "]") return null; // computed method name
  if (before.t !== "id" || before.v.startsWith("\u0000") || BLOCK_KEYWORDS.has(before.v)) return undefined;
  // `function name(`, or a method `name(` (possibly `async`, `static`, `get`, … in front).
  const kw = at(j - 1);
  if (kw?.t === "id" && kw.v === "function") return before.v;
  if (kw?.v === "*" && at(j - 2)?.v === "function") return before.v;
  if (
    !kw ||
    (kw.t === "p" && (kw.v === "{" || kw.v === "}" || kw.v === ";" || kw.v === "," || kw.v === "*")) ||
    (kw.t === "id" && MODIFIERS.has(kw.v))
  )
    return before.v;
  // `a.b(c) {` cannot be a method head; anything else is not a function body.
  return undefined;
}

/** The innermost function scope containing `offset`, if any. */
export function enclosingScope(scopes: FunctionScope[], offset: number): FunctionScope | undefined {
  let lo = 0;
  let hi = scopes.length - 1;
  let last = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((scopes[mid] as FunctionScope).start <= offset) {
      last = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  for (let j = last; j >= 0; j--) {
    const s = scopes[j] as FunctionScope;
    if (s.end >= offset) return s;
  }
  return undefined;
}
