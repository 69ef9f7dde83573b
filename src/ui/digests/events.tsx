import Link from "next/link";
import type { DigestEvent } from "@/server/types";
import { TimeAgo } from "../kit/time-ago";

const TH = "h-8 px-2 text-[11px] font-medium tracking-wide text-fg-muted uppercase";

/** Server / browser marker for an event that carries a Next.js digest. */
export function DigestSideBadge({ side }: { side: DigestEvent["side"] }) {
  return (
    <span
      className="badge"
      data-side={side}
      title={side === "server" ? "Server (onRequestError / server SDK)" : "Browser (error.tsx / global-error.tsx)"}
    >
      {side === "server" ? "server" : "browser"}
    </span>
  );
}

/** The events sharing a digest: side · issue (short id, title) · project · event id · when. */
export function DigestEventList({ org, events, now }: { org: string; events: DigestEvent[]; now: number }) {
  return (
    <div className="overflow-hidden rounded-md border border-border">
      <table className="w-full table-fixed border-collapse">
        <caption className="sr-only">Events with this digest</caption>
        <colgroup>
          <col className="w-[84px]" />
          <col />
          <col className="w-[120px]" />
          <col className="w-[132px]" />
          <col className="w-[96px]" />
        </colgroup>
        <thead>
          <tr className="border-b border-border bg-subtle">
            <th scope="col" className={`${TH} pl-4 text-left`}>
              Side
            </th>
            <th scope="col" className={`${TH} text-left`}>
              Issue
            </th>
            <th scope="col" className={`${TH} text-left`}>
              Project
            </th>
            <th scope="col" className={`${TH} text-left`}>
              Event
            </th>
            <th scope="col" className={`${TH} pr-4 text-right`}>
              Received
            </th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={`${e.projectSlug}:${e.eventId}`} className="border-b border-border last:border-b-0 hover:bg-hover" data-side={e.side}>
              <td className="py-1.5 pl-4">
                <DigestSideBadge side={e.side} />
              </td>
              <td className="min-w-0 px-2 py-1.5">
                <Link
                  href={`/${encodeURIComponent(org)}/issues/${e.issueId}`}
                  className="block truncate text-[13.5px] font-semibold text-fg hover:underline"
                >
                  {e.issueTitle || "(no title)"}
                </Link>
                <span className="font-mono text-[12px] text-fg-muted">{e.issueShortId}</span>
                {e.digest !== e.key ? <span className="ml-2 font-mono text-[12px] text-fg-dim">{e.digest}</span> : null}
              </td>
              <td className="truncate px-2 font-mono text-[12px] text-fg-muted">{e.projectSlug}</td>
              <td className="truncate px-2 font-mono text-[12px] text-fg-muted" title={e.eventId}>
                {e.eventId.slice(0, 12)}
              </td>
              <td className="tabular px-2 pr-4 text-right text-fg-muted">
                <TimeAgo ms={e.receivedAt} now={now} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
