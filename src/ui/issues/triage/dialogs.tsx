"use client";
/**
 * Dialogs and menus of the triage screens: modal <dialog> (focus trap and Escape for free), a
 * confirmation, the assignee picker, a menu button, the `?` shortcut sheet. Loaded on demand by
 * the stream (not part of its first load).
 */
import { type KeyboardEvent as ReactKeyboardEvent, type ReactNode, useEffect, useRef, useState } from "react";
import type { Member } from "./kit";

/** A modal <dialog> that opens when `open` is true and reports closing (Escape, backdrop, buttons). */
export function Modal({
  open,
  onClose,
  label,
  children,
  wide,
}: {
  open: boolean;
  onClose: () => void;
  label: string;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const isOpen = useRef(open);
  isOpen.current = open;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-label={label}
      // The close event is queued: when another dialog was opened meanwhile (Escape then "?"), it is stale.
      onClose={() => {
        if (isOpen.current) onClose();
      }}
      onClick={(e) => {
        if (e.target === ref.current) onClose();
      }}
      onKeyDown={() => {}}
      className={`m-auto w-[calc(100vw-2rem)] rounded-lg border border-border-strong bg-bg p-0 text-fg shadow-xl backdrop:bg-black/40 ${wide ? "max-w-[560px]" : "max-w-[400px]"}`}
    >
      {open ? <div className="p-4">{children}</div> : null}
    </dialog>
  );
}

/** Yes/no for destructive or irreversible actions. */
export function Confirm({
  open,
  title,
  body,
  action,
  danger,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  body: ReactNode;
  action: string;
  danger?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal open={open} onClose={onClose} label={title}>
      <h2 className="text-[15px] font-semibold">{title}</h2>
      <div className="mt-1 text-fg-muted">{body}</div>
      <div className="mt-4 flex justify-end gap-2">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className={`btn ${danger ? "border-danger text-danger" : "btn-primary"}`}
          onClick={() => {
            onConfirm();
            onClose();
          }}
        >
          {action}
        </button>
      </div>
    </Modal>
  );
}

/** Assign to me, to a member, to a team (`team:<id>` entries after the members), or nobody; a filter box narrows long lists. */
export function AssignDialog({
  open,
  members,
  meId,
  onPick,
  onClose,
}: {
  open: boolean;
  members: Member[];
  meId: string;
  onPick: (userId: string | null, name: string) => void;
  onClose: () => void;
}) {
  const [filter, setFilter] = useState("");
  const f = filter.toLowerCase();
  const shown = members.filter((m) => !f || m.name.toLowerCase().includes(f) || m.email.toLowerCase().includes(f)).slice(0, 50);
  const pick = (id: string | null, name: string) => {
    onPick(id, name);
    onClose();
  };
  return (
    <Modal open={open} onClose={onClose} label="Assign">
      <h2 className="text-[15px] font-semibold">Assign to</h2>
      <input
        className="input mt-2"
        aria-label="Filter members"
        placeholder="Name, email or #team"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && shown[0]) pick(shown[0].id, shown[0].name);
        }}
      />
      <ul className="mt-2 max-h-[50vh] overflow-y-auto">
        {!f ? (
          <li>
            <button type="button" className="btn btn-ghost w-full justify-start" onClick={() => pick(null, "nobody")}>
              Unassigned
            </button>
          </li>
        ) : null}
        {shown.map((m) => (
          <li key={m.id}>
            <button type="button" className="btn btn-ghost w-full justify-start" onClick={() => pick(m.id, m.name)}>
              <span className="truncate">
                {m.name}
                {m.id === meId ? " (me)" : ""}
              </span>
              <span className="ml-auto truncate text-[12px] text-fg-dim">{m.email || (m.id.startsWith("team:") ? "team" : "")}</span>
            </button>
          </li>
        ))}
      </ul>
    </Modal>
  );
}

/** A button that opens a menu of actions (arrow keys move, Escape closes). */
export function MenuButton({
  label,
  title,
  items,
  children,
  up,
  open: shown,
  onOpenChange,
  className = "",
}: {
  label: string;
  title?: string;
  items: Array<{ label: string; hint?: string; run: () => void } | null>;
  children: ReactNode;
  /** open upwards (menus in a bar at the bottom of the screen) */
  up?: boolean;
  /** controlled: a page shortcut opens the menu (the button still toggles it through `onOpenChange`) */
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  /** extra classes of the button (btn-primary-touch: a 44 px target on touch screens) */
  className?: string;
}) {
  const [own, setOwn] = useState(false);
  const open = shown ?? own;
  const changed = useRef(onOpenChange);
  changed.current = onOpenChange;
  const setOpen = (o: boolean) => {
    setOwn(o);
    changed.current?.(o);
  };
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    root.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    const away = (e: MouseEvent) => {
      if (root.current?.contains(e.target as Node)) return;
      setOwn(false);
      changed.current?.(false);
    };
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
  }, [open]);
  const move = (e: ReactKeyboardEvent) => {
    const list = [...(root.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    const i = list.indexOf(document.activeElement as HTMLElement);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      list[(i + (e.key === "ArrowDown" ? 1 : list.length - 1)) % list.length]?.focus();
    } else if (e.key === "Escape") {
      setOpen(false);
      root.current?.querySelector<HTMLElement>("button")?.focus();
    }
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: arrow keys and Escape bubble up from the button and its menu items.
    <div ref={root} className="relative" onKeyDown={move}>
      <button
        type="button"
        className={`btn btn-sm ${className}`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={label}
        title={title ?? label}
        onClick={() => setOpen(!open)}
      >
        {children}
        <svg width="10" height="10" viewBox="0 0 10 10" aria-hidden="true">
          <path d="M2 4l3 3 3-3" fill="none" stroke="currentColor" strokeWidth="1.4" />
        </svg>
      </button>
      {open ? (
        <div
          role="menu"
          aria-label={label}
          className={`absolute right-0 z-30 min-w-[220px] ${up ? "bottom-full mb-1" : "top-full mt-1"} rounded-md border border-border bg-bg py-1 shadow-lg sm:left-0 sm:right-auto`}
        >
          {items.map((it, i) =>
            it ? (
              <button
                key={it.label}
                type="button"
                role="menuitem"
                className="flex w-full items-center justify-between gap-4 px-3 py-1.5 text-left hover:bg-hover focus:bg-hover focus-visible:-outline-offset-2 touch:py-2.5"
                onClick={() => {
                  setOpen(false);
                  it.run();
                }}
              >
                {it.label}
                {it.hint ? <kbd className="text-[11px] text-fg-dim">{it.hint}</kbd> : null}
              </button>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: separators are positional.
              <hr key={i} className="my-1 border-border" />
            ),
          )}
        </div>
      ) : null}
    </div>
  );
}

/** The `?` sheet: every shortcut of the page. */
export function ShortcutsSheet({ open, onClose, keys }: { open: boolean; onClose: () => void; keys: Array<[string, string]> }) {
  return (
    <Modal open={open} onClose={onClose} label="Keyboard shortcuts">
      <h2 className="text-[15px] font-semibold">Keyboard shortcuts</h2>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5">
        {keys.map(([k, what]) => (
          <div key={k} className="contents">
            <dt>
              <kbd className="rounded border border-border-strong px-1.5 py-0.5 text-[11.5px]">{k}</kbd>
            </dt>
            <dd className="text-fg-muted">{what}</dd>
          </div>
        ))}
      </dl>
      <div className="mt-4 flex justify-end">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}

export const IGNORE_OPTIONS: Array<{ label: string; details: Record<string, number> }> = [
  { label: "Ignore forever", details: {} },
  { label: "for 30 minutes", details: { ignoreDuration: 30 } },
  { label: "for 2 hours", details: { ignoreDuration: 120 } },
  { label: "for 24 hours", details: { ignoreDuration: 1440 } },
  { label: "for 1 week", details: { ignoreDuration: 10080 } },
  { label: "until 10 more events", details: { ignoreCount: 10 } },
  { label: "until 100 more events", details: { ignoreCount: 100 } },
  { label: "until 100 more events in an hour", details: { ignoreCount: 100, ignoreWindow: 60 } },
  { label: "until 10 more users", details: { ignoreUserCount: 10 } },
  { label: "until 100 more users", details: { ignoreUserCount: 100 } },
];
