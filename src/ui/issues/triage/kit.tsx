"use client";
/**
 * Small client primitives shared by the stream and the issue page: single-key shortcuts and a
 * toast with Undo. Kept tiny: this ships on the stream's first load (dialogs and menus live in
 * dialogs.tsx, loaded when first needed).
 */
import { useCallback, useEffect, useRef, useState } from "react";

export interface Member {
  id: string;
  name: string;
  email: string;
}

/** True when a key press belongs to a text field or a modifier chord, not to our shortcuts. */
export function typing(e: KeyboardEvent): boolean {
  if (e.metaKey || e.ctrlKey || e.altKey) return true;
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  return t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || Boolean(t.closest("dialog[open]"));
}

/** Calls `handler` for plain key presses outside text fields and dialogs. */
export function useKeys(handler: (key: string, e: KeyboardEvent) => void): void {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (!typing(e)) ref.current(e.key, e);
    };
    window.addEventListener("keydown", on);
    return () => window.removeEventListener("keydown", on);
  }, []);
}

export interface ToastState {
  text: string;
  undo?: () => void;
  error?: boolean;
}

/** A toast that clears itself (Undo stays for 8 s). */
export function useToast(): [ToastState | null, (t: ToastState | null) => void] {
  const [toast, setToast] = useState<ToastState | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const show = useCallback((t: ToastState | null) => {
    clearTimeout(timer.current);
    setToast(t);
    if (t) timer.current = setTimeout(() => setToast(null), t.undo ? 8000 : 5000);
  }, []);
  return [toast, show];
}

/**
 * Always mounted (a live region must exist before it speaks); fixed, so it never shifts layout.
 * `lifted`: the bulk-action bar is showing at the bottom, so the toast sits above it, not on it.
 */
export function Toast({ toast, onClose, lifted = false }: { toast: ToastState | null; onClose: () => void; lifted?: boolean }) {
  return (
    <div
      role="status"
      aria-live="polite"
      className={`pointer-events-none fixed left-1/2 z-50 -translate-x-1/2 ${lifted ? "bottom-[7rem] sm:bottom-[4.5rem]" : "bottom-4"}`}
    >
      {toast ? (
        <div
          className={`pointer-events-auto flex items-center gap-3 rounded-md border bg-bg px-3 py-2 shadow-lg ${toast.error ? "border-danger" : "border-border-strong"}`}
        >
          <span>{toast.text}</span>
          {toast.undo ? (
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => {
                toast.undo?.();
                onClose();
              }}
            >
              Undo
            </button>
          ) : null}
          <button type="button" className="btn btn-sm btn-ghost px-1.5" aria-label="Dismiss" onClick={onClose}>
            ×
          </button>
        </div>
      ) : null}
    </div>
  );
}
