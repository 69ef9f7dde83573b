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
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, []);
  return null;
}
