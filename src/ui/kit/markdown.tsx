import type { ReactNode } from "react";
import { type Inline, parseMarkdown } from "./markdown-parse";

/**
 * Comment text rendered safely: tokens from markdown-parse.ts become React elements (text is
 * escaped by React; no HTML string is ever injected). Links are http(s) only, open in a new tab,
 * and carry rel="noopener noreferrer nofollow".
 */
export function Markdown({ text, className = "" }: { text: string; className?: string }) {
  const blocks = parseMarkdown(text);
  return (
    <div className={`flex flex-col gap-2 break-words ${className}`}>
      {blocks.map((b, i) =>
        b.t === "pre" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks are positional.
          <pre key={i} className="overflow-x-auto rounded border border-border bg-code px-2 py-1.5 text-[12px]">
            <code>{b.v}</code>
          </pre>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks are positional.
          <p key={i}>{inline(b.c)}</p>
        ),
      )}
    </div>
  );
}

function inline(nodes: Inline[]): ReactNode[] {
  return nodes.map((n, i) => {
    switch (n.t) {
      case "text":
        return n.v;
      case "br":
        // biome-ignore lint/suspicious/noArrayIndexKey: positional.
        return <br key={i} />;
      case "code":
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: positional.
          <code key={i} className="rounded bg-muted px-1 text-[12px]">
            {n.v}
          </code>
        );
      case "strong":
        // biome-ignore lint/suspicious/noArrayIndexKey: positional.
        return <strong key={i}>{inline(n.c)}</strong>;
      case "em":
        // biome-ignore lint/suspicious/noArrayIndexKey: positional.
        return <em key={i}>{inline(n.c)}</em>;
      case "link":
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: positional.
          <a key={i} href={n.href} target="_blank" rel="noopener noreferrer nofollow" className="underline underline-offset-2">
            {inline(n.c)}
          </a>
        );
    }
    return null;
  });
}
