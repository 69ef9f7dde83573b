import { CopyButton } from "../kit/copy-button";
import { prettyJson } from "../kit/format";

/** The stored event as JSON, folded by default. */
export function RawJson({ value }: { value: unknown }) {
  const json = prettyJson(value);
  return (
    <details className="group/json rounded-md border border-border">
      <summary className="flex h-8 items-center gap-2 px-3 text-[12.5px] text-fg-muted hover:text-fg">
        Raw JSON <span className="text-fg-dim">({json.length.toLocaleString("en")} characters)</span>
      </summary>
      <div className="relative border-t border-border bg-code">
        <div className="absolute top-1.5 right-1.5">
          <CopyButton text={json} label="Copy raw JSON" />
        </div>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; focusable so a keyboard can scroll it (WCAG 2.1.1). */}
        <pre tabIndex={0} className="max-h-[600px] overflow-auto px-3 py-2 text-[12px] leading-[1.5]">
          <code>{json}</code>
        </pre>
      </div>
    </details>
  );
}
