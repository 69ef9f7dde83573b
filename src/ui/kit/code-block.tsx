import { CopyButton } from "./copy-button";

/** A monospace block with a copy button. Text only. */
export function CodeBlock({
  code,
  label,
  copyLabel,
  className = "",
}: {
  code: string;
  label?: string;
  copyLabel?: string;
  className?: string;
}) {
  const copy = <CopyButton text={code} label={copyLabel ?? (label ? `Copy ${label}` : "Copy")} />;
  if (label) {
    return (
      <div className={`overflow-hidden rounded-md border border-border bg-code ${className}`}>
        <div className="flex h-8 items-center justify-between gap-2 border-b border-border pr-1.5 pl-3 text-[12px] text-fg-muted">
          <span className="truncate">{label}</span>
          {copy}
        </div>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; focusable so a keyboard can scroll it (WCAG 2.1.1). */}
        <pre tabIndex={0} className="overflow-x-auto px-3 py-2.5 leading-[1.55]">
          <code>{code}</code>
        </pre>
      </div>
    );
  }
  return (
    <div className={`relative flex items-start rounded-md border border-border bg-code ${className}`}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; focusable so a keyboard can scroll it (WCAG 2.1.1). */}
      <pre tabIndex={0} className="min-w-0 flex-1 overflow-x-auto px-3 py-2.5 leading-[1.55]">
        <code>{code}</code>
      </pre>
      <div className="shrink-0 p-1.5">{copy}</div>
    </div>
  );
}
