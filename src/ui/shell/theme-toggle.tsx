"use client";

import { useEffect, useState } from "react";
import { THEME_STORAGE_KEY } from "./theme-script";

type Choice = "system" | "light" | "dark";
const NEXT: Record<Choice, Choice> = { system: "light", light: "dark", dark: "system" };
const LABEL: Record<Choice, string> = { system: "System theme", light: "Light theme", dark: "Dark theme" };

function apply(choice: Choice) {
  const root = document.documentElement;
  if (choice === "system") root.removeAttribute("data-theme");
  else root.setAttribute("data-theme", choice);
  try {
    if (choice === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Storage can be unavailable (private mode); the choice then lasts for this page only.
  }
}

/** aria-pressed of the "Dark theme" toggle: on, off, or "mixed" while the system decides. */
const PRESSED: Record<Choice, "true" | "false" | "mixed"> = { system: "mixed", light: "false", dark: "true" };

/**
 * Cycles system → light → dark; the choice is remembered in localStorage (applied before paint by
 * the boot script). A screen reader hears the state: a "Dark theme" toggle pressed, not pressed,
 * or mixed (following the system).
 */
export function ThemeToggle() {
  const [choice, setChoice] = useState<Choice>("system");
  useEffect(() => {
    const t = document.documentElement.getAttribute("data-theme");
    setChoice(t === "light" || t === "dark" ? t : "system");
  }, []);
  const next = NEXT[choice];
  return (
    <button
      type="button"
      className="btn btn-sm btn-ghost w-[28px] px-0"
      aria-label="Dark theme"
      aria-pressed={PRESSED[choice]}
      title={`${LABEL[choice]} — switch to ${LABEL[next].toLowerCase()}`}
      onClick={() => {
        apply(next);
        setChoice(next);
      }}
    >
      <ThemeIcon choice={choice} />
    </button>
  );
}

function ThemeIcon({ choice }: { choice: Choice }) {
  const common = {
    width: 15,
    height: 15,
    viewBox: "0 0 16 16",
    fill: "none",
    stroke: "currentColor",
    strokeWidth: 1.5,
    "aria-hidden": true,
  } as const;
  if (choice === "light")
    return (
      <svg {...common}>
        <circle cx="8" cy="8" r="3" />
        <path d="M8 1.5v1.5M8 13v1.5M1.5 8H3M13 8h1.5M3.4 3.4l1 1M11.6 11.6l1 1M3.4 12.6l1-1M11.6 4.4l1-1" strokeLinecap="round" />
      </svg>
    );
  if (choice === "dark")
    return (
      <svg {...common}>
        <path d="M13.5 9.5A5.5 5.5 0 0 1 6.5 2.5a5.5 5.5 0 1 0 7 7Z" strokeLinejoin="round" />
      </svg>
    );
  return (
    <svg {...common}>
      <circle cx="8" cy="8" r="5.5" />
      <path d="M8 2.5v11A5.5 5.5 0 0 0 8 2.5Z" fill="currentColor" />
    </svg>
  );
}
