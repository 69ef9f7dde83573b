"use client";
/**
 * The issue page's status actions: Resolve ▾ (now / in the next release / in a release…),
 * Ignore ▾ (forever / for a while / until N more events or users), Unresolve, Assign, Merge…,
 * Delete, Mute alerts ▾ (1 hour / 24 hours / 7 days / until unmuted) or Unmute. Applied
 * optimistically with Undo; keys r, i, u, a, m, o/n (older/newer event), ?.
 */
import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import type { IssueMuteState } from "@/server/alerts/alerts";
import type { IssueUpdate } from "@/server/types";
import { absoluteTime } from "../kit/format";
import type { ActionResult, TriageActions } from "./triage/actions";
import { AssignDialog, Confirm, IGNORE_OPTIONS, MenuButton, Modal, ShortcutsSheet } from "./triage/dialogs";
import { type Member, Toast, useKeys, useToast } from "./triage/kit";

export interface IssueBarIssue {
  id: number;
  shortId: string;
  status: string;
  substatus: string;
  /** how it is resolved / ignored, in words (from the server) */
  statusNote: string | null;
  lastRelease: string | null;
  assignee: Member | null;
}

const ISSUE_KEYS: Array<[string, string]> = [
  ["r", "resolve"],
  ["i", "ignore"],
  ["u", "unresolve"],
  ["a", "assign"],
  ["m", "mute / unmute alerts"],
  ["o / n", "older / newer event"],
  ["O / N", "oldest / latest event"],
  ["?", "this list"],
];

/** How long "Mute alerts" silences the issue (minutes; null = until someone unmutes it). */
export const MUTE_OPTIONS: Array<{ label: string; minutes: number | null }> = [
  { label: "For 1 hour", minutes: 60 },
  { label: "For 24 hours", minutes: 1440 },
  { label: "For 7 days", minutes: 10080 },
  { label: "Until unmuted", minutes: null },
];

/** setTimeout's longest delay (about 24.8 days); a longer one fires at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * A mute with an end shows as ended when it ends, while the page stays open (the server stops
 * muting at that moment; the badge used to stay until the next load). A mute longer than a
 * timer's reach is looked at again when the timer fires.
 */
function useMuteExpiry(mute: IssueMuteState | null | undefined, set: (m: IssueMuteState) => void): void {
  const [recheck, setRecheck] = useState(0);
  const until = mute?.muted ? mute.until : null;
  useEffect(() => {
    if (until === null) return;
    void recheck;
    const left = until - Date.now();
    const t = setTimeout(
      () => (left > MAX_TIMEOUT_MS ? setRecheck((n) => n + 1) : set({ muted: false, until: null })),
      Math.max(0, Math.min(left, MAX_TIMEOUT_MS)),
    );
    return () => clearTimeout(t);
  }, [until, recheck, set]);
}

/** "Alerts muted until 2026-03-04 13:05 UTC" (UTC like every absolute time here: the same on server and client). */
export function muteText(m: IssueMuteState): string {
  return m.until === null ? "Alerts muted" : `Alerts muted until ${absoluteTime(m.until).replace(/:\d\d UTC$/, " UTC")}`;
}

export function IssueActionsBar({
  org,
  issue,
  members,
  meId,
  canDelete,
  readOnly = false,
  alertMute = null,
  actions,
  streamHref,
  eventLinks,
}: {
  org: string;
  issue: IssueBarIssue;
  members: Member[];
  meId: string;
  canDelete: boolean;
  /** a viewer: the status and navigation only, no mutation controls (the services refuse them anyway) */
  readOnly?: boolean;
  /** whether the issue's alerts are muted (null: unknown, the control is left out) */
  alertMute?: IssueMuteState | null;
  actions: TriageActions & {
    mergeInto(
      org: string,
      issueId: number,
      others: string,
    ): Promise<{ ok: true; value: { primaryId: number } } | { ok: false; message: string }>;
    muteIssueAlerts(org: string, issueId: number, minutes: number | null): Promise<ActionResult<IssueMuteState>>;
    unmuteIssueAlerts(org: string, issueId: number): Promise<ActionResult<IssueMuteState>>;
  };
  streamHref: string;
  /** hrefs of the oldest/older/newer/latest events (null when they would not move) */
  eventLinks: { first: string | null; older: string | null; newer: string | null; latest: string | null };
}) {
  const router = useRouter();
  const [, startRefresh] = useTransition();
  const [state, setState] = useState<{ status: string; substatus: string; note: string | null } | null>(null);
  const [assignee, setAssignee] = useState<Member | null | undefined>(undefined);
  const [dialog, setDialog] = useState<"assign" | "release" | "merge" | "delete" | "keys" | null>(null);
  const [muteState, setMuteState] = useState<IssueMuteState | null | undefined>(undefined);
  const [muteMenu, setMuteMenu] = useState(false);
  const [toast, showToast] = useToast();
  const status = state?.status ?? issue.status;
  const substatus = state?.substatus ?? issue.substatus;
  const note = state ? state.note : issue.statusNote;
  const who = assignee === undefined ? issue.assignee : assignee;
  const mute = muteState === undefined ? alertMute : muteState;
  useMuteExpiry(mute, setMuteState);
  const refresh = () => startRefresh(() => router.refresh());

  async function change(update: IssueUpdate, label: string, optimistic: { status: string; note: string | null }) {
    const before = { status, substatus, note };
    setState({ ...optimistic, substatus: "" });
    const res = await actions.updateIssues(org, [issue.id], update);
    if (!res.ok) {
      setState(before);
      showToast({ text: `Could not ${label.toLowerCase()}: ${res.message}`, error: true });
      return;
    }
    // Exactly as it was: a `new` issue stays new (plain unresolve would age it into `ongoing`).
    const sub = before.substatus === "new" || before.substatus === "regressed" ? before.substatus : "ongoing";
    const restore: IssueUpdate =
      before.status === "resolved" || before.status === "ignored" ? { status: before.status } : { status: "unresolved", substatus: sub };
    showToast({
      text: `${label} ${issue.shortId}`,
      undo: async () => {
        setState(before);
        const back = await actions.updateIssues(org, [issue.id], restore);
        showToast(back.ok ? { text: `Restored ${issue.shortId}` } : { text: `Undo failed: ${back.message}`, error: true });
        refresh();
      },
    });
    refresh();
  }

  const resolveNow = () => change({ status: "resolved" }, "Resolved", { status: "resolved", note: null });
  const ignoreForever = () => change({ status: "ignored" }, "Ignored", { status: "ignored", note: "forever" });
  const unresolve = () => change({ status: "unresolved" }, "Unresolved", { status: "unresolved", note: null });

  async function assign(userId: string | null, name: string) {
    const before = who;
    setAssignee(userId ? (members.find((m) => m.id === userId) ?? { id: userId, name, email: "" }) : null);
    const res = await actions.updateIssues(org, [issue.id], { assignedTo: userId ?? "" });
    if (!res.ok) {
      setAssignee(before);
      showToast({ text: `Could not assign: ${res.message}`, error: true });
    } else {
      showToast({ text: userId ? `Assigned to ${name}` : "Unassigned" });
      refresh();
    }
  }

  /** Mutes (minutes, or null: until unmuted) or unmutes (undefined); Undo puts back what was before. */
  async function setMute(minutes: number | null | undefined, undo = true) {
    const before = mute;
    const res =
      minutes === undefined ? await actions.unmuteIssueAlerts(org, issue.id) : await actions.muteIssueAlerts(org, issue.id, minutes);
    if (!res.ok) {
      showToast({ text: `Could not ${minutes === undefined ? "unmute" : "mute"} alerts: ${res.message}`, error: true });
      return;
    }
    setMuteState(res.value);
    const back = !before?.muted ? undefined : before.until === null ? null : Math.max(1, Math.ceil((before.until - Date.now()) / 60_000));
    showToast({
      text: res.value.muted ? muteText(res.value) : "Alerts unmuted",
      undo: undo ? () => setMute(back, false) : undefined,
    });
    refresh();
  }

  useKeys((key, e) => {
    const go = (href: string | null) => href && router.push(href, { scroll: false });
    if (readOnly && (key === "r" || key === "i" || key === "u" || key === "a" || key === "m")) return;
    if (key === "r" && status !== "resolved") resolveNow();
    else if (key === "i" && status !== "ignored") ignoreForever();
    else if (key === "u" && status !== "unresolved") unresolve();
    else if (key === "a") setDialog("assign");
    else if (key === "m" && mute?.muted) setMute(undefined);
    else if (key === "m" && mute) setMuteMenu(true);
    else if (key === "o") go(eventLinks.older);
    else if (key === "n") go(eventLinks.newer);
    else if (key === "O") go(eventLinks.first);
    else if (key === "N") go(eventLinks.latest);
    else if (key === "?") setDialog("keys");
    else return;
    e.preventDefault();
  });

  const label = status === "unresolved" && substatus ? `unresolved · ${substatus}` : status;
  return (
    <div className="flex flex-wrap items-center gap-1.5">
      <span className="badge" data-testid="issue-status" title={note ?? undefined}>
        {label}
        {note ? ` · ${note}` : ""}
      </span>
      {/* One button for Resolve and Unresolve: the same element stays, so the focus does too
          (Enter on Resolve used to drop it to the page when the button was swapped). */}
      {readOnly ? null : (
        <button
          type="button"
          className="btn btn-sm btn-primary-touch"
          title={status === "unresolved" ? "Resolve (r)" : "Unresolve (u)"}
          aria-keyshortcuts={status === "unresolved" ? "r" : "u"}
          onClick={status === "unresolved" ? resolveNow : unresolve}
        >
          {status === "unresolved" ? "Resolve" : "Unresolve"}
        </button>
      )}
      {readOnly || status !== "unresolved" ? null : (
        <>
          <MenuButton
            label="More ways to resolve"
            className="btn-primary-touch"
            items={[
              { label: "Resolve now", hint: "r", run: resolveNow },
              {
                label: "In the next release",
                run: () =>
                  change({ status: "resolved", statusDetails: { inNextRelease: true } }, "Resolved", {
                    status: "resolved",
                    note: "in the next release",
                  }),
              },
              { label: "In a release…", run: () => setDialog("release") },
            ]}
          >
            <span className="sr-only">Resolve options</span>
          </MenuButton>
          <MenuButton
            label="Ignore"
            title="Ignore (i)"
            className="btn-primary-touch"
            items={IGNORE_OPTIONS.map((o, i) => ({
              label: o.label,
              hint: i === 0 ? "i" : undefined,
              run: () =>
                change({ status: "ignored", statusDetails: o.details }, "Ignored", {
                  status: "ignored",
                  note: i === 0 ? "forever" : o.label,
                }),
            }))}
          >
            Ignore
          </MenuButton>
        </>
      )}
      {readOnly ? (
        who ? (
          <span className="badge">Assigned: {who.name || who.email}</span>
        ) : null
      ) : (
        <>
          <button
            type="button"
            className="btn btn-sm btn-primary-touch"
            title="Assign (a)"
            aria-keyshortcuts="a"
            onClick={() => setDialog("assign")}
          >
            {who ? `Assigned: ${who.name || who.email}` : "Assign"}
          </button>
          <button type="button" className="btn btn-sm" title="Merge other issues into this one" onClick={() => setDialog("merge")}>
            Merge…
          </button>
        </>
      )}
      {mute ? (
        <span className="flex items-center gap-1.5" data-testid="alert-mute" data-muted={mute.muted}>
          {mute.muted ? (
            <>
              <span className="badge border-dashed" title="No alert rule sends anything about this issue while it is muted">
                {muteText(mute)}
              </span>
              {readOnly ? null : (
                <button
                  type="button"
                  className="btn btn-sm"
                  aria-label="Unmute alerts"
                  title="Unmute alerts (m)"
                  aria-keyshortcuts="m"
                  onClick={() => setMute(undefined)}
                >
                  Unmute
                </button>
              )}
            </>
          ) : readOnly ? null : (
            <MenuButton
              label="Mute alerts"
              title="Mute alerts (m)"
              open={muteMenu}
              onOpenChange={setMuteMenu}
              items={MUTE_OPTIONS.map((o) => ({ label: o.label, run: () => setMute(o.minutes) }))}
            >
              Mute alerts
            </MenuButton>
          )}
        </span>
      ) : null}
      {canDelete && !readOnly ? (
        <button type="button" className="btn btn-sm text-danger" onClick={() => setDialog("delete")}>
          Delete
        </button>
      ) : null}
      <button
        type="button"
        className="btn btn-sm btn-ghost w-6 px-0"
        aria-label="Keyboard shortcuts"
        title="Keyboard shortcuts (?)"
        onClick={() => setDialog("keys")}
      >
        ?
      </button>

      <AssignDialog open={dialog === "assign"} members={members} meId={meId} onClose={() => setDialog(null)} onPick={assign} />
      <ReleaseDialog
        open={dialog === "release"}
        initial={issue.lastRelease ?? ""}
        onClose={() => setDialog(null)}
        onResolve={(release) =>
          change({ status: "resolved", statusDetails: { inRelease: release } }, "Resolved", { status: "resolved", note: `in ${release}` })
        }
      />
      <MergeDialog
        open={dialog === "merge"}
        shortId={issue.shortId}
        onClose={() => setDialog(null)}
        onMerge={async (others) => {
          const res = await actions.mergeInto(org, issue.id, others);
          if (!res.ok) return res.message;
          showToast({ text: "Merged" });
          router.push(`${streamHref}/${res.value.primaryId}`);
          return null;
        }}
      />
      <Confirm
        open={dialog === "delete"}
        title={`Delete ${issue.shortId}?`}
        body="The issue and all its events are removed for good. New events of the same error will open a new issue."
        action="Delete"
        danger
        onClose={() => setDialog(null)}
        onConfirm={async () => {
          const res = await actions.deleteIssues(org, [issue.id]);
          if (res.ok) router.push(streamHref);
          else showToast({ text: `Could not delete: ${res.message}`, error: true });
        }}
      />
      <ShortcutsSheet open={dialog === "keys"} onClose={() => setDialog(null)} keys={ISSUE_KEYS} />
      <Toast toast={toast} onClose={() => showToast(null)} />
    </div>
  );
}

function ReleaseDialog({
  open,
  initial,
  onClose,
  onResolve,
}: {
  open: boolean;
  initial: string;
  onClose: () => void;
  onResolve: (release: string) => void;
}) {
  const [value, setValue] = useState(initial);
  return (
    <Modal open={open} onClose={onClose} label="Resolve in a release">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!value.trim()) return;
          onResolve(value.trim());
          onClose();
        }}
      >
        <h2 className="text-[15px] font-semibold">Resolve in a release</h2>
        <p className="mt-1 text-fg-muted">
          Events from this release or later reopen the issue as a regression; older releases keep it resolved.
        </p>
        <label className="mt-3 block">
          <span className="text-[12px] text-fg-muted">Release</span>
          <input className="input mt-1 font-mono" value={value} onChange={(e) => setValue(e.target.value)} placeholder="web@1.4.2" />
        </label>
        <div className="mt-4 flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary">
            Resolve
          </button>
        </div>
      </form>
    </Modal>
  );
}

function MergeDialog({
  open,
  shortId,
  onClose,
  onMerge,
}: {
  open: boolean;
  shortId: string;
  onClose: () => void;
  onMerge: (others: string) => Promise<string | null>;
}) {
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Modal open={open} onClose={onClose} label="Merge issues">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          const err = await onMerge(value);
          setBusy(false);
          if (err) setError(err);
          else onClose();
        }}
      >
        <h2 className="text-[15px] font-semibold">Merge into {shortId}</h2>
        <p className="mt-1 text-fg-muted">
          Short ids of issues of the same project. Their events join {shortId}, which keeps its id; their links lead here afterwards.
          Merging cannot be undone, but a grouping hash can be split off again from the issue page.
        </p>
        <label className="mt-3 block">
          <span className="text-[12px] text-fg-muted">Issues to merge</span>
          <input
            className="input mt-1 font-mono"
            value={value}
            aria-invalid={error ? true : undefined}
            onChange={(e) => {
              setValue(e.target.value);
              setError(null);
            }}
            placeholder="WEB-12, WEB-15"
          />
        </label>
        {error ? (
          <p role="alert" className="mt-2 text-danger">
            {error}
          </p>
        ) : null}
        <div className="mt-4 flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || !value.trim()}>
            Merge
          </button>
        </div>
      </form>
    </Modal>
  );
}
