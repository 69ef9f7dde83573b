"use client";
/**
 * The grouping hashes of an issue (several after a merge) with Unmerge per hash, as Sentry offers
 * it: the hash's stored events and its future ones move to a new issue, which opens.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Confirm } from "./triage/dialogs";

export type UnmergeAction = (
  org: string,
  issueId: number,
  hash: string,
) => Promise<{ ok: true; value: { newIssueId: number; movedEvents: number } } | { ok: false; message: string }>;

export function GroupingHashes({
  org,
  issueId,
  hashes,
  canUnmerge,
  unmerge,
  streamHref,
}: {
  org: string;
  issueId: number;
  hashes: Array<{ hash: string; groupingVersion: string }>;
  canUnmerge: boolean;
  unmerge: UnmergeAction;
  streamHref: string;
}) {
  const router = useRouter();
  const [pick, setPick] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const splittable = canUnmerge && hashes.length > 1;
  return (
    <div>
      <ul className="divide-y divide-border rounded-md border border-border" aria-label="Grouping hashes">
        {hashes.map((h) => (
          <li key={h.hash} className="flex items-center gap-2 px-2 py-1">
            <code className="min-w-0 truncate text-[11.5px]" title={`${h.hash} (grouping ${h.groupingVersion})`}>
              {h.hash}
            </code>
            {splittable ? (
              <button
                type="button"
                className="btn btn-sm ml-auto shrink-0"
                disabled={busy}
                aria-label={`Unmerge ${h.hash}`}
                onClick={() => setPick(h.hash)}
              >
                Unmerge
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <p className="mt-1 text-[12px] text-fg-dim">
        {hashes.length > 1
          ? "Events were grouped here by these hashes (a merge joins them). Unmerge moves one hash's events to a new issue."
          : "One hash: nothing to unmerge."}
      </p>
      {error ? (
        <p role="alert" className="mt-1 text-[12.5px] text-danger">
          {error}
        </p>
      ) : null}
      <Confirm
        open={pick !== null}
        title="Unmerge this hash?"
        body={`Its stored events and every later one go to a new issue; this issue keeps the other ${hashes.length - 1}.`}
        action="Unmerge"
        onClose={() => setPick(null)}
        onConfirm={async () => {
          const hash = pick;
          if (!hash) return;
          setBusy(true);
          setError(null);
          const res = await unmerge(org, issueId, hash);
          setBusy(false);
          if (!res.ok) setError(`Could not unmerge: ${res.message}`);
          else router.push(`${streamHref}/${res.value.newIssueId}`);
        }}
      />
    </div>
  );
}
