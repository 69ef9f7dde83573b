"use client";

import { useActionState } from "react";

type State = { status: "idle" } | { status: "error"; code: string; message: string };

/** Deleting a replay: its recording and rows go for good, after a confirmation. */
export function DeleteReplayForm({
  org,
  project,
  replayId,
  action,
}: {
  org: string;
  project: string;
  replayId: string;
  action: (prev: State, data: FormData) => Promise<State>;
}) {
  const [state, formAction, pending] = useActionState(action, { status: "idle" } as State);
  return (
    <details className="rounded-md border border-border px-3 py-2">
      <summary className="text-[12.5px] text-fg-muted">Delete this replay…</summary>
      <form action={formAction} className="mt-2 flex flex-col gap-2">
        <input type="hidden" name="org" value={org} />
        <input type="hidden" name="project" value={project} />
        <input type="hidden" name="replayId" value={replayId} />
        <p className="text-[12.5px] text-fg-muted">The recording and everything Errata derived from it are removed; linked errors stay.</p>
        <button type="submit" className="btn btn-sm self-start border-danger text-danger" disabled={pending}>
          {pending ? "Deleting…" : "Delete replay"}
        </button>
        {state.status === "error" ? (
          <p role="alert" className="text-[12.5px] text-danger">
            {state.message}
          </p>
        ) : null}
      </form>
    </details>
  );
}
