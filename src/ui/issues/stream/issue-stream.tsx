"use client";
/**
 * The issue stream table with triage: j/k move, enter opens, x selects, r resolves, i ignores,
 * a assigns, ? lists the keys. Resolve/ignore/assign apply at once (optimistic) and the toast
 * offers Undo; a failure rolls back and says why. Selected rows get a sticky bulk bar: resolve,
 * ignore, assign, merge, delete (confirmed). Rows have a fixed height and every column a fixed
 * width, so nothing moves while data changes.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { lazy, Suspense, useEffect, useRef, useState, useTransition } from "react";
import type { IssueUpdate } from "@/server/types";
import { countOf } from "../../kit/format";
import type { TriageActions } from "../triage/actions";
import { type Member, Toast, useKeys, useToast } from "../triage/kit";
import type { StreamDialog } from "./extras";
import type { StreamRow } from "./row";

const loadExtras = () => import("./extras");
const StreamExtras = lazy(loadExtras);

const LEVEL_BG: Record<string, string> = {
  fatal: "bg-fatal",
  error: "bg-error",
  warning: "bg-warning",
  info: "bg-info",
  debug: "bg-debug",
};

export const STREAM_KEYS: Array<[string, string]> = [
  ["j / k", "next / previous issue"],
  ["enter", "open the issue"],
  ["x", "select / unselect"],
  ["r", "resolve (selected or current)"],
  ["i", "ignore (selected or current)"],
  ["a", "assign"],
  ["/", "search"],
  ["esc", "clear the selection"],
  ["?", "this list"],
];

type Patch = Partial<Pick<StreamRow, "status" | "substatus" | "badges" | "assignee">>;

/** The issue a merge of these rows keeps (named in the dialog before confirming): the oldest. */
function mergeSurvivor(rows: StreamRow[]): StreamRow | undefined {
  return [...rows].sort((a, b) => a.firstSeenAt - b.firstSeenAt || a.id - b.id)[0];
}

/** The update that puts a row back where it was (Undo): status and, for unresolved rows, the exact substatus. */
function restoreOf(r: StreamRow): IssueUpdate {
  if (r.status === "resolved" || r.status === "ignored") return { status: r.status };
  const sub = r.substatus === "new" || r.substatus === "regressed" ? r.substatus : "ongoing";
  return { status: "unresolved", substatus: sub };
}

export function IssueStream({
  org,
  rows,
  statusView,
  members,
  meId,
  canDelete,
  readOnly = false,
  more = false,
  actions,
}: {
  /** Server Actions (src/app/[org]/issues/actions.ts), passed in so this folder does not import the app */
  actions: TriageActions;
  org: string;
  rows: StreamRow[];
  /** the status filter in effect: rows leaving it disappear */
  statusView: string;
  members: Member[];
  meId: string;
  canDelete: boolean;
  /** a viewer: no selection, no triage keys or bulk actions (the services refuse them anyway) */
  readOnly?: boolean;
  /** more issues are on the next page (the count says "50+") */
  more?: boolean;
}) {
  const { updateIssues, mergeIssues, deleteIssues } = actions;
  const router = useRouter();
  const [, startRefresh] = useTransition();
  const [focus, setFocus] = useState(-1);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [hidden, setHidden] = useState<Set<number>>(new Set());
  const [patches, setPatches] = useState<Map<number, Patch>>(new Map());
  const [toast, showToast] = useToast();
  const [dialog, setDialog] = useState<StreamDialog>(null);
  const body = useRef<HTMLTableSectionElement>(null);
  /** Set when a triage key hides the focused row: the row that moves up takes the focus. */
  const refocus = useRef(false);

  const visible = rows.filter((r) => !hidden.has(r.id)).map((r) => ({ ...r, ...patches.get(r.id) }));
  const current = visible[focus];
  // Keep selection to rows still on screen (a refresh may have dropped some).
  const selectedRows = visible.filter((r) => selected.has(r.id));
  const targets = selectedRows.length > 0 ? selectedRows : current ? [current] : [];

  useEffect(() => {
    if (focus >= visible.length) setFocus(visible.length - 1);
  }, [focus, visible.length]);

  // The focused row's link left the DOM with its row (focus fell to <body>, and the next `j`
  // skipped the row that moved up): focus the row now at the same position.
  useEffect(() => {
    if (!refocus.current || visible.length === 0) return;
    refocus.current = false;
    const links = body.current?.querySelectorAll<HTMLAnchorElement>("a[data-row-link]");
    const i = Math.max(0, Math.min(focus, visible.length - 1));
    links?.[i]?.focus({ preventScroll: true });
  }, [focus, visible.length]);

  // The bulk bar and dialogs are a separate chunk: fetch it while idle so the first use is instant.
  useEffect(() => {
    const t = setTimeout(() => void loadExtras(), 1500);
    return () => clearTimeout(t);
  }, []);

  function moveTo(i: number) {
    const n = Math.max(0, Math.min(visible.length - 1, i));
    setFocus(n);
    const link = body.current?.querySelectorAll<HTMLAnchorElement>("a[data-row-link]")[n];
    link?.focus({ preventScroll: true });
    link?.closest("tr")?.scrollIntoView({ block: "nearest" });
  }

  function refresh() {
    startRefresh(() => router.refresh());
  }

  function patch(list: StreamRow[], p: (r: StreamRow) => Patch | null) {
    setPatches((m) => {
      const next = new Map(m);
      for (const r of list) {
        const v = p(r);
        if (v) next.set(r.id, { ...next.get(r.id), ...v });
        else next.delete(r.id);
      }
      return next;
    });
  }

  function setHiddenFor(ids: number[], hide: boolean) {
    setHidden((h) => {
      const next = new Set(h);
      for (const id of ids) hide ? next.add(id) : next.delete(id);
      return next;
    });
  }

  /** Resolve or ignore: applied at once, Undo restores each row's previous status. */
  async function changeStatus(list: StreamRow[], update: IssueUpdate, verb: string) {
    if (list.length === 0) return;
    const ids = list.map((r) => r.id);
    const newStatus = update.status === "resolvedInNextRelease" ? "resolved" : (update.status ?? "unresolved");
    const leaves = statusView !== "all" && statusView !== newStatus;
    if (leaves) {
      refocus.current = current !== undefined && ids.includes(current.id);
      setHiddenFor(ids, true);
    } else
      patch(list, (r) => ({
        status: newStatus,
        badges: [newStatus, ...r.badges.filter((b) => !["new", "regressed", "resolved", "ignored"].includes(b))],
      }));
    setSelected(new Set());
    const res = await updateIssues(org, ids, update);
    if (!res.ok) {
      setHiddenFor(ids, false);
      patch(list, () => null);
      showToast({ text: `Could not ${verb.toLowerCase()}: ${res.message}`, error: true });
      return;
    }
    const what = list.length === 1 ? (list[0]?.shortId ?? "issue") : `${list.length} issues`;
    showToast({
      text: `${verb} ${what}`,
      undo: async () => {
        const groups = new Map<string, StreamRow[]>();
        for (const r of list) {
          const key = JSON.stringify(restoreOf(r));
          groups.set(key, [...(groups.get(key) ?? []), r]);
        }
        const results = await Promise.all(
          [...groups].map(([u, rs]) =>
            updateIssues(
              org,
              rs.map((r) => r.id),
              JSON.parse(u) as IssueUpdate,
            ),
          ),
        );
        const failed = results.find((r) => !r.ok);
        if (failed && !failed.ok) showToast({ text: `Undo failed: ${failed.message}`, error: true });
        else {
          setHiddenFor(ids, false);
          patch(list, () => null);
          showToast({ text: `Restored ${what}` });
        }
        refresh();
      },
    });
    refresh();
  }

  async function assign(list: StreamRow[], userId: string | null, name: string) {
    if (list.length === 0) return;
    const ids = list.map((r) => r.id);
    patch(list, () => ({ assignee: userId ? { name, initials: name.slice(0, 2).toUpperCase() } : null }));
    const res = await updateIssues(org, ids, { assignedTo: userId ?? "" });
    if (!res.ok) {
      patch(list, () => null);
      showToast({ text: `Could not assign: ${res.message}`, error: true });
      return;
    }
    showToast({ text: userId ? `Assigned to ${name}` : "Unassigned" });
    refresh();
  }

  async function bulk(kind: "merge" | "delete") {
    const list = selectedRows;
    const ids = list.map((r) => r.id);
    const keep = mergeSurvivor(list);
    setHiddenFor(kind === "delete" ? ids : ids.filter((id) => id !== keep?.id), true);
    const res = kind === "merge" ? await mergeIssues(org, ids, keep?.id) : await deleteIssues(org, ids);
    if (!res.ok) {
      setHiddenFor(ids, false);
      showToast({ text: `Could not ${kind}: ${res.message}`, error: true });
      return;
    }
    setSelected(new Set());
    showToast({ text: kind === "merge" ? `Merged ${countOf(ids.length, "issue")}` : `Deleted ${countOf(ids.length, "issue")}` });
    refresh();
  }

  function toggle(id: number) {
    setSelected((s) => {
      const next = new Set(s);
      next.has(id) ? next.delete(id) : next.add(id);
      return next;
    });
  }

  useKeys((key, e) => {
    if (key === "j" || key === "ArrowDown") moveTo(focus + 1);
    else if (key === "k" || key === "ArrowUp") moveTo(focus - 1);
    else if (key === "Enter" && current && !(e.target instanceof HTMLAnchorElement)) router.push(current.href);
    else if (readOnly && (key === "x" || key === "r" || key === "i" || key === "a")) return;
    else if (key === "x" && current) toggle(current.id);
    else if (key === "r") changeStatus(targets, { status: "resolved" }, "Resolved");
    else if (key === "i") changeStatus(targets, { status: "ignored" }, "Ignored");
    else if (key === "a" && targets.length > 0) setDialog("assign");
    else if (key === "?") setDialog("keys");
    else if (key === "Escape") setSelected(new Set());
    else return;
    e.preventDefault();
  });

  const allSelected = visible.length > 0 && selectedRows.length === visible.length;
  return (
    <>
      <p className="tabular mb-1.5 text-[12px] text-fg-muted" data-testid="stream-count">
        {more ? `${visible.length}+ issues` : countOf(visible.length, "issue")}
        {more ? " (older ones on the next page)" : ""}
      </p>
      <div className="overflow-hidden rounded-md border border-border">
        <table className="w-full table-fixed border-collapse">
          <caption className="sr-only">Issues</caption>
          <colgroup>
            <col className="w-[28px] sm:w-[34px]" />
            <col />
            <col className="hidden w-[88px] md:table-column" />
            <col className="w-[54px] sm:w-[64px]" />
            <col className="hidden w-[60px] sm:table-column" />
            <col className="hidden w-[40px] md:table-column" />
            <col className="w-[72px] sm:w-[84px]" />
            <col className="hidden w-[86px] lg:table-column" />
          </colgroup>
          <thead>
            <tr className="h-8 border-b border-border bg-subtle text-[11px] font-medium tracking-wide whitespace-nowrap text-fg-muted uppercase">
              <th scope="col" className="pl-2 text-left sm:pl-3">
                {readOnly ? (
                  <span className="sr-only">Level</span>
                ) : (
                  <input
                    type="checkbox"
                    className="align-middle"
                    aria-label="Select all issues on this page"
                    checked={allSelected}
                    onChange={() => setSelected(allSelected ? new Set() : new Set(visible.map((r) => r.id)))}
                  />
                )}
              </th>
              <th scope="col" className="px-2 text-left font-medium">
                Issue
              </th>
              <th scope="col" className="hidden px-2 text-left font-medium md:table-cell">
                Graph
              </th>
              <th scope="col" className="px-2 text-right font-medium">
                Events
              </th>
              <th scope="col" className="hidden px-2 text-right font-medium sm:table-cell">
                Users
              </th>
              <th scope="col" className="hidden px-1 text-center font-medium md:table-cell">
                <span className="sr-only">Assignee</span>
              </th>
              <th scope="col" className="px-2 text-right font-medium">
                <span className="sm:hidden">Seen</span>
                <span className="hidden sm:inline">Last seen</span>
              </th>
              <th scope="col" className="hidden pr-3 pl-2 text-right font-medium lg:table-cell">
                First seen
              </th>
            </tr>
          </thead>
          <tbody ref={body}>
            {visible.map((r, i) => (
              <Row
                key={r.id}
                r={r}
                focused={i === focus}
                selected={selected.has(r.id)}
                onFocus={() => setFocus(i)}
                onToggle={readOnly ? null : () => toggle(r.id)}
              />
            ))}
          </tbody>
        </table>
        {visible.length === 0 ? (
          <p className="px-4 py-6 text-center text-fg-muted">Nothing left on this page. Use the pagination or clear the filters.</p>
        ) : null}
      </div>

      {selectedRows.length > 0 || dialog ? (
        <Suspense fallback={null}>
          <StreamExtras
            selected={selectedRows.length}
            dialog={dialog}
            setDialog={setDialog}
            canDelete={canDelete}
            members={members}
            meId={meId}
            keys={STREAM_KEYS}
            onResolve={() => changeStatus(selectedRows, { status: "resolved" }, "Resolved")}
            onIgnore={(details) => changeStatus(selectedRows, { status: "ignored", statusDetails: details }, "Ignored")}
            onAssign={(id, name) => assign(targets, id, name)}
            onMerge={() => bulk("merge")}
            mergeTarget={mergeSurvivor(selectedRows)?.shortId ?? ""}
            onDelete={() => bulk("delete")}
            onClear={() => setSelected(new Set())}
          />
        </Suspense>
      ) : null}
      <Toast toast={toast} lifted={selectedRows.length > 0} onClose={() => showToast(null)} />
    </>
  );
}

function Row({
  r,
  focused,
  selected,
  onFocus,
  onToggle,
}: {
  r: StreamRow;
  focused: boolean;
  selected: boolean;
  onFocus: () => void;
  /** null: read-only (a viewer), no selection box */
  onToggle: (() => void) | null;
}) {
  return (
    <tr
      data-id={r.id}
      aria-selected={selected}
      onFocus={onFocus}
      className={`group relative h-10 border-b border-border last:border-b-0 hover:bg-hover ${selected ? "bg-muted" : ""} ${focused ? "shadow-[inset_2px_0_0_var(--fg)]" : ""}`}
    >
      <td className="relative pl-2 sm:pl-3">
        <span
          className={`absolute top-2 bottom-2 left-1 block w-[3px] rounded-full ${LEVEL_BG[r.level] ?? "bg-error"}`}
          title={`Level: ${r.level}`}
        />
        {onToggle ? (
          <input
            type="checkbox"
            className={`relative z-10 align-middle ${selected || focused ? "" : "opacity-0 group-hover:opacity-100 focus:opacity-100 [@media(hover:none)]:opacity-100"}`}
            aria-label={`Select ${r.shortId}`}
            title="Select (x)"
            checked={selected}
            onChange={onToggle}
          />
        ) : null}
      </td>
      <td className="min-w-0 px-2 py-0.5">
        <div className="flex min-w-0 items-center gap-2">
          {/* The link stretches over the row (after:inset-0 against the relative <tr>). */}
          <Link
            data-row-link=""
            href={r.href}
            className="truncate text-[13px] leading-[17px] font-semibold text-fg decoration-fg-dim underline-offset-2 outline-none after:absolute after:inset-0 after:rounded-[3px] after:content-[''] group-hover:underline focus-visible:underline focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-(--focus)"
          >
            {r.title}
          </Link>
          {r.badges.map((b) => (
            <span key={b} className="badge hidden shrink-0 sm:inline-flex" data-badge={b}>
              {b}
            </span>
          ))}
        </div>
        <div className="flex min-w-0 gap-2 text-[11.5px] leading-[15px] text-fg-dim">
          <span className="shrink-0 font-mono">{r.shortId}</span>
          <span className="truncate font-mono">{r.culprit}</span>
          {r.linked ? (
            // above the row's stretched link, so it opens the tracker
            <a
              href={r.linked.url}
              target="_blank"
              rel="noopener noreferrer"
              className="relative z-10 shrink-0 text-fg-muted underline hover:text-fg"
              title={`Linked issue: ${r.linked.url}`}
              data-testid="row-linked-issue"
            >
              ↗ {r.linked.label}
            </a>
          ) : null}
        </div>
      </td>
      <td className="hidden px-2 md:table-cell">
        <svg width="72" height="20" viewBox="0 0 72 20" role="img" aria-label={r.sparkLabel} className="block text-fg-dim">
          <title>{r.sparkLabel}</title>
          <path d="M0 19.5H72" stroke="currentColor" strokeOpacity="0.3" strokeWidth="1" />
          {r.spark ? <path d={r.spark} fill="currentColor" /> : null}
        </svg>
      </td>
      <td className="tabular px-2 text-right" title={countOf(r.count, "event")}>
        {r.countText}
      </td>
      <td className="tabular hidden px-2 text-right text-fg-muted sm:table-cell">{r.usersText}</td>
      <td className="hidden px-1 text-center md:table-cell">
        {r.assignee ? (
          <span
            className="inline-flex size-6 items-center justify-center rounded-full border border-border-strong text-[10px] font-semibold text-fg-muted"
            title={`Assigned to ${r.assignee.name}`}
          >
            {r.assignee.initials}
          </span>
        ) : null}
      </td>
      <td className="tabular px-2 text-right text-fg-muted" title={r.lastSeen[1]}>
        {r.lastSeen[0]}
      </td>
      <td className="tabular hidden pr-3 pl-2 text-right text-fg-dim lg:table-cell" title={r.firstSeen[1]}>
        {r.firstSeen[0]}
      </td>
    </tr>
  );
}
