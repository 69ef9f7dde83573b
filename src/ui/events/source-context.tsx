import { CopyButton } from "../kit/copy-button";
import type { FrameView } from "./model";

/** Pre/context/post lines with line numbers; the crash line highlighted. */
export function SourceContext({ frame }: { frame: FrameView }) {
  const rows: { n?: number; text: string; crash: boolean }[] = [];
  const ln = frame.lineno;
  for (const [i, text] of frame.pre.entries())
    rows.push({ n: ln !== undefined ? ln - frame.pre.length + i : undefined, text, crash: false });
  if (frame.contextLine !== undefined) rows.push({ n: ln, text: frame.contextLine, crash: true });
  for (const [i, text] of frame.post.entries()) rows.push({ n: ln !== undefined ? ln + 1 + i : undefined, text, crash: false });
  if (rows.length === 0) return null;
  const width = String(Math.max(0, ...rows.map((r) => r.n ?? 0))).length;
  return (
    <div className="group/src relative border-t border-border bg-code">
      <div className="absolute top-1 right-1.5 z-10 opacity-0 transition-opacity group-hover/src:opacity-100 focus-within:opacity-100">
        <CopyButton text={rows.map((r) => r.text).join("\n")} label="Copy source context" />
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; focusable so a keyboard can scroll it (WCAG 2.1.1). */}
      <pre tabIndex={0} className="overflow-x-auto py-1 text-[12px] leading-[1.6]">
        <code className="block min-w-max">
          {rows.map((r, i) => (
            <span
              // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional.
              key={i}
              className={`flex ${r.crash ? "border-l-2 border-crash-border bg-crash" : "border-l-2 border-transparent"}`}
              aria-current={r.crash ? "true" : undefined}
            >
              <span
                className="tabular inline-block shrink-0 select-none pr-3 pl-3 text-right text-fg-dim"
                style={{ minWidth: `${width + 3}ch` }}
              >
                {r.n ?? ""}
              </span>
              <span className="pr-24 whitespace-pre">{r.text || " "}</span>
            </span>
          ))}
        </code>
      </pre>
    </div>
  );
}
