"use client";

import { useEffect } from "react";

/**
 * The `<details data-popover>` menus of the top bar (organization switcher, phone menu) close on
 * Escape, returning the focus to their summary, and on a click or tap outside them. One listener
 * for the page: the menus themselves stay server-rendered and work before hydration.
 */
export function PopoverEscape() {
  useEffect(() => {
    const open = () => [...document.querySelectorAll<HTMLDetailsElement>("details[data-popover][open]")];
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      for (const d of open()) {
        d.open = false;
        if (d.contains(document.activeElement) || document.activeElement === document.body) d.querySelector("summary")?.focus();
      }
    };
    const onPointer = (e: PointerEvent) => {
      for (const d of open()) if (!d.contains(e.target as Node)) d.open = false;
    };
    // The top bar lives in the layout and survives a client navigation: a followed link closes its menu.
    const onClick = (e: MouseEvent) => {
      const link = (e.target as Element | null)?.closest?.("a");
      for (const d of open()) if (link && d.contains(link)) d.open = false;
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("click", onClick);
    };
  }, []);
  return null;
}
