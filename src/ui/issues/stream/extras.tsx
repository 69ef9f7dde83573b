"use client";
/**
 * The stream's bulk bar and dialogs, in their own chunk: the stream loads it when a row is first
 * selected or a dialog opened (and prefetches it when idle), keeping the first load small.
 */
import { countOf } from "../../kit/format";
import { AssignDialog, Confirm, IGNORE_OPTIONS, MenuButton, ShortcutsSheet } from "../triage/dialogs";
import type { Member } from "../triage/kit";

export type StreamDialog = "assign" | "merge" | "delete" | "keys" | null;

export default function StreamExtras({
  selected,
  dialog,
  setDialog,
  canDelete,
  members,
  meId,
  keys,
  onResolve,
  onIgnore,
  onAssign,
  onMerge,
  mergeTarget,
  onDelete,
  onClear,
}: {
  selected: number;
  dialog: StreamDialog;
  setDialog: (d: StreamDialog) => void;
  canDelete: boolean;
  members: Member[];
  meId: string;
  keys: Array<[string, string]>;
  onResolve: () => void;
  onIgnore: (details: Record<string, number>) => void;
  onAssign: (userId: string | null, name: string) => void;
  onMerge: () => void;
  /** short id of the issue the merge keeps */
  mergeTarget: string;
  onDelete: () => void;
  onClear: () => void;
}) {
  const close = () => setDialog(null);
  return (
    <>
      {selected > 0 ? (
        <div
          role="toolbar"
          aria-label="Bulk actions"
          className="fixed bottom-4 left-1/2 z-40 flex w-max max-w-[calc(100vw-1rem)] -translate-x-1/2 flex-wrap items-center gap-2 rounded-lg border border-border-strong bg-bg px-3 py-2 shadow-lg"
        >
          <span className="tabular mr-1 font-medium">{selected} selected</span>
          <button type="button" className="btn btn-sm" title="Resolve (r)" onClick={onResolve}>
            Resolve
          </button>
          <MenuButton
            label="Ignore selected"
            title="Ignore (i)"
            up
            items={IGNORE_OPTIONS.map((o) => ({ label: o.label, run: () => onIgnore(o.details) }))}
          >
            Ignore
          </MenuButton>
          <button type="button" className="btn btn-sm" title="Assign (a)" onClick={() => setDialog("assign")}>
            Assign
          </button>
          <button
            type="button"
            className="btn btn-sm"
            disabled={selected < 2}
            title={`Merge into ${mergeTarget}, the oldest selected issue`}
            onClick={() => setDialog("merge")}
          >
            Merge
          </button>
          {canDelete ? (
            <button type="button" className="btn btn-sm text-danger" onClick={() => setDialog("delete")}>
              Delete
            </button>
          ) : null}
          <button type="button" className="btn btn-sm btn-ghost" title="Clear selection (esc)" onClick={onClear}>
            Clear
          </button>
        </div>
      ) : null}
      <AssignDialog open={dialog === "assign"} members={members} meId={meId} onClose={close} onPick={onAssign} />
      <Confirm
        open={dialog === "merge"}
        title={`Merge ${selected} issues into ${mergeTarget}?`}
        body={`Their events move into ${mergeTarget} (the oldest of them), which keeps its id; the others' links lead to it. Merging cannot be undone.`}
        action="Merge"
        onConfirm={onMerge}
        onClose={close}
      />
      <Confirm
        open={dialog === "delete"}
        title={`Delete ${countOf(selected, "issue")}?`}
        body="The issues and all their events are removed for good. New events of the same errors will open new issues."
        action="Delete"
        danger
        onConfirm={onDelete}
        onClose={close}
      />
      <ShortcutsSheet open={dialog === "keys"} onClose={close} keys={keys} />
    </>
  );
}
