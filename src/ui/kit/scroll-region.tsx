import type { ReactNode } from "react";

/**
 * A box that scrolls sideways (a wide table on a narrow screen), reachable by keyboard so its
 * hidden columns can be scrolled into view without a mouse (WCAG 2.1.1; axe's
 * scrollable-region-focusable). Named, so the stop is announced as what it holds.
 */
export function ScrollRegion({ label, className = "", children }: { label: string; className?: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable to be scrolled by keyboard.
    <section tabIndex={0} aria-label={label} className={`overflow-x-auto ${className}`}>
      {children}
    </section>
  );
}
