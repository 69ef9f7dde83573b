/**
 * Autocompletion for the search bar: what is being typed at the caret (a key or a key's value),
 * the language's own keys and their fixed values, and how to splice a chosen completion in.
 * Pure and tiny: it ships to the browser with the search bar.
 */

export type CompletionContext =
  /** typing a key (or free text that may become one): `prefix` is what is typed so far */
  | { kind: "key"; prefix: string; from: number; to: number }
  /** typing the value of `key` */
  | { kind: "value"; key: string; prefix: string; negated: boolean; from: number; to: number };

export interface KeyHelp {
  key: string;
  hint: string;
  /** fixed values offered without asking the server */
  values?: string[];
}

export const SEARCH_KEYS: KeyHelp[] = [
  { key: "is", hint: "status", values: ["unresolved", "resolved", "ignored", "regressed", "new", "ongoing", "assigned", "unassigned"] },
  { key: "level", hint: "fatal, error, warning, info, debug", values: ["fatal", "error", "warning", "info", "debug"] },
  { key: "environment", hint: "where it happened" },
  { key: "release", hint: "version" },
  { key: "project", hint: "project slug" },
  { key: "assigned", hint: "me, none or an email", values: ["me", "none"] },
  { key: "has", hint: "user or any tag key", values: ["user"] },
  { key: "user.email", hint: "affected user's email" },
  { key: "digest", hint: "Next.js error digest" },
  { key: "firstSeen", hint: "-24h within, +7d older than", values: ["-1h", "-24h", "-7d", "+7d", "+30d"] },
  { key: "lastSeen", hint: "-24h within, +7d older than", values: ["-1h", "-24h", "-7d", "+7d", "+30d"] },
];

/** Keys answered from the language itself; every other key's values come from the project's tag data. */
const FIXED = new Map(SEARCH_KEYS.filter((k) => k.values).map((k) => [k.key.toLowerCase(), k.values as string[]]));

export function fixedValues(key: string): string[] | undefined {
  return FIXED.get(key.toLowerCase());
}

/** What the token under the caret is. Null inside a quoted free-text phrase. */
export function completionContext(query: string, caret: number): CompletionContext | null {
  const at = Math.max(0, Math.min(caret, query.length));
  // The token runs from the last whitespace outside quotes before the caret.
  let start = 0;
  let inQuote = false;
  for (let i = 0; i < at; i++) {
    const c = query[i];
    if (c === '"') inQuote = !inQuote;
    else if (!inQuote && /\s/.test(c as string)) start = i + 1;
  }
  let end = at;
  while (end < query.length && !/\s/.test(query[end] as string)) end++;
  const token = query.slice(start, at);
  const m = /^(!?)([A-Za-z_][\w.]*):(.*)$/.exec(token);
  if (m) {
    const keyFrom = start + (m[1] as string).length;
    const valueFrom = keyFrom + (m[2] as string).length + 1;
    return {
      kind: "value",
      key: m[2] as string,
      prefix: (m[3] as string).replace(/^"/, ""),
      negated: m[1] === "!",
      from: valueFrom,
      to: end,
    };
  }
  if (inQuote || token.startsWith('"')) return null;
  const neg = token.startsWith("!") ? 1 : 0;
  return { kind: "key", prefix: token.slice(neg), from: start + neg, to: end };
}

/** Quotes a value when it holds whitespace or quotes. */
export function quoteValue(v: string): string {
  return /[\s"]/.test(v) ? `"${v.replace(/(["\\])/g, "\\$1")}"` : v;
}

/**
 * The query with the completion applied at the context's range, and the new caret. A key
 * completion leaves the caret after `key:`; a value completion adds a space after the value.
 */
export function applyCompletion(query: string, ctx: CompletionContext, completion: string): { query: string; caret: number } {
  const insert = ctx.kind === "key" ? `${completion}:` : `${quoteValue(completion)} `;
  const before = query.slice(0, ctx.from);
  const after = query.slice(ctx.to).replace(/^\s+/, "");
  const next = `${before}${insert}${after}`;
  return { query: next, caret: before.length + insert.length };
}

/** Keys (static first, then the data's tag keys) matching a typed prefix. */
export function matchKeys(prefix: string, tagKeys: string[], limit = 8): Array<{ value: string; hint?: string }> {
  const p = prefix.toLowerCase();
  const out: Array<{ value: string; hint?: string }> = [];
  for (const k of SEARCH_KEYS) if (k.key.toLowerCase().startsWith(p)) out.push({ value: k.key, hint: k.hint });
  const known = new Set(SEARCH_KEYS.map((k) => k.key.toLowerCase()));
  for (const t of tagKeys) if (!known.has(t.toLowerCase()) && t.toLowerCase().startsWith(p)) out.push({ value: t, hint: "tag" });
  return out.slice(0, limit);
}
