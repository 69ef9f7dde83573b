"use client";
/**
 * Original (source-mapped) frames by default, the minified ones a click away. Both are rendered
 * on the server; this only flips which one shows (no request, no layout jump above the frames).
 */
import { type ReactNode, useState } from "react";

export function FrameModes({ children }: { children: ReactNode }) {
  const [raw, setRaw] = useState(false);
  return (
    <div data-frames={raw ? "raw" : "original"} className="group/fm">
      {/* biome-ignore lint/a11y/useSemanticElements: a two-button toggle group, not a form fieldset. */}
      <div role="group" aria-label="Frames" className="mb-2 inline-flex overflow-hidden rounded-md border border-border-strong text-[12px]">
        <button
          type="button"
          aria-pressed={!raw}
          className={`h-6 px-2.5 ${raw ? "text-fg-muted" : "bg-muted font-medium"}`}
          onClick={() => setRaw(false)}
        >
          Original
        </button>
        <button
          type="button"
          aria-pressed={raw}
          title="The minified frames as the browser reported them"
          className={`h-6 border-l border-border-strong px-2.5 ${raw ? "bg-muted font-medium" : "text-fg-muted"}`}
          onClick={() => setRaw(true)}
        >
          Raw
        </button>
      </div>
      {children}
    </div>
  );
}
