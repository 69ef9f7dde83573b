"use client";
/**
 * New events without a reload: an EventSource on …/issues/live reports how many issues saw events
 * since the page was rendered; a pill (overlaid, so nothing shifts) offers to show them. The
 * browser reconnects by itself; the server sends the count again on reconnect.
 */
import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import { countOf } from "../../kit/format";

export default function LivePill({ org, since, project, auto }: { org: string; since: number; project: string; auto?: boolean }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [changes, setChanges] = useState<{ updated: number; created: number } | null>(null);

  useEffect(() => {
    setChanges(null);
    const qs = new URLSearchParams({ since: String(since), ...(project ? { project } : {}) });
    const source = new EventSource(`/${encodeURIComponent(org)}/issues/live?${qs}`);
    source.addEventListener("changes", (e) => {
      try {
        const data = JSON.parse((e as MessageEvent<string>).data) as { updated: number; created: number };
        if (data.updated > 0) {
          // Waiting for the first event: show it as soon as it is there.
          if (auto) startTransition(() => router.refresh());
          else setChanges(data);
        }
      } catch {
        // A malformed message is skipped; the next one carries the full count again.
      }
    });
    return () => source.close();
  }, [org, since, project, auto, router]);

  if (!changes) return null;
  const text =
    changes.created > 0
      ? `${countOf(changes.created, "new issue")}${changes.updated > changes.created ? `, ${changes.updated - changes.created} updated` : ""}`
      : `${countOf(changes.updated, "issue")} updated`;
  return (
    <div className="pointer-events-none absolute inset-x-0 top-1 z-10 flex justify-center">
      <button
        type="button"
        className="btn btn-sm btn-primary pointer-events-auto rounded-full shadow-lg"
        disabled={pending}
        onClick={() => startTransition(() => router.refresh())}
      >
        {text} — show
      </button>
    </div>
  );
}
