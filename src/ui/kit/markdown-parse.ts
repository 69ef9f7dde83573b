/**
 * A deliberately tiny markdown subset for comments, parsed into tokens that React renders as
 * elements (never HTML strings): paragraphs and line breaks, **bold**, *italic* / _italic_,
 * `code`, ```fenced code```, and [links](https://…) / bare URLs — links only for http(s), anything
 * else (javascript:, data:, relative) stays text.
 */

export type Inline =
  | { t: "text"; v: string }
  | { t: "code"; v: string }
  | { t: "strong"; c: Inline[] }
  | { t: "em"; c: Inline[] }
  | { t: "link"; href: string; c: Inline[] }
  | { t: "br" };

export type Block = { t: "p"; c: Inline[] } | { t: "pre"; v: string };

const MAX_DEPTH = 4;

/** Only absolute http(s) URLs become links; returns the normalised href or null. */
export function safeHref(raw: string): string | null {
  const s = raw.trim();
  if (!/^https?:\/\//i.test(s)) return null;
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
  } catch {
    return null;
  }
}

export function parseMarkdown(src: string): Block[] {
  const blocks: Block[] = [];
  const text = src.replace(/\r\n?/g, "\n");
  const parts = text.split(/^```[^\n]*\n?/m);
  // Odd parts are inside fences (an unclosed fence runs to the end).
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      blocks.push({ t: "pre", v: part.replace(/\n$/, "") });
      return;
    }
    for (const para of part.split(/\n{2,}/)) {
      if (para.trim() === "") continue;
      blocks.push({ t: "p", c: parseInline(para.replace(/^\n+|\n+$/g, ""), 0) });
    }
  });
  return blocks;
}

const URL_RE = /^https?:\/\/[^\s<>()"']+[^\s<>()"'.,;:!?]/i;

export function parseInline(s: string, depth: number): Inline[] {
  const out: Inline[] = [];
  let buf = "";
  const flush = () => {
    if (buf) out.push({ t: "text", v: buf });
    buf = "";
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    const rest = s.slice(i);
    if (c === "\\" && i + 1 < s.length && /[\\`*_[\]()]/.test(s[i + 1] as string)) {
      buf += s[i + 1];
      i += 2;
      continue;
    }
    if (c === "\n") {
      flush();
      out.push({ t: "br" });
      i++;
      continue;
    }
    if (c === "`") {
      const end = s.indexOf("`", i + 1);
      if (end > i + 1) {
        flush();
        out.push({ t: "code", v: s.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    if (depth < MAX_DEPTH && (rest.startsWith("**") || rest.startsWith("__"))) {
      const mark = rest.slice(0, 2);
      const end = s.indexOf(mark, i + 2);
      if (end > i + 2) {
        flush();
        out.push({ t: "strong", c: parseInline(s.slice(i + 2, end), depth + 1) });
        i = end + 2;
        continue;
      }
    }
    if (depth < MAX_DEPTH && (c === "*" || c === "_") && s[i + 1] !== c && s[i + 1] !== " ") {
      const end = s.indexOf(c, i + 1);
      // `_` inside words (snake_case) is not emphasis.
      const wordBefore = c === "_" && i > 0 && /\w/.test(s[i - 1] as string);
      if (end > i + 1 && !wordBefore && s[end - 1] !== " ") {
        flush();
        out.push({ t: "em", c: parseInline(s.slice(i + 1, end), depth + 1) });
        i = end + 1;
        continue;
      }
    }
    if (c === "[") {
      const m = /^\[([^\]\n]+)\]\(([^)\s]+)\)/.exec(rest);
      if (m) {
        const href = safeHref(m[2] as string);
        flush();
        const label = depth < MAX_DEPTH ? parseInline(m[1] as string, depth + 1) : [{ t: "text" as const, v: m[1] as string }];
        // An unsafe target keeps the label and shows the target as plain text.
        if (href) out.push({ t: "link", href, c: label });
        else out.push(...label, { t: "text", v: ` (${m[2]})` });
        i += m[0].length;
        continue;
      }
    }
    if ((c === "h" || c === "H") && (i === 0 || /[\s(]/.test(s[i - 1] as string))) {
      const m = URL_RE.exec(rest);
      const href = m ? safeHref(m[0]) : null;
      if (m && href) {
        flush();
        out.push({ t: "link", href, c: [{ t: "text", v: m[0] }] });
        i += m[0].length;
        continue;
      }
    }
    buf += c;
    i++;
  }
  flush();
  return out;
}
