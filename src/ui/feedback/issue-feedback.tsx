import Link from "next/link";
import type { IssueFeedback } from "@/server/issues/stream";
import { TimeAgo } from "../kit/time-ago";

/** What users wrote about this issue's events (report dialog, feedback widget), as plain text. */
export function FeedbackList({ items, issuePath, now }: { items: IssueFeedback[]; issuePath: string; now: number }) {
  if (items.length === 0) return null;
  return (
    <ul className="flex flex-col gap-2" aria-label="User feedback">
      {items.map((f) => (
        <li key={f.id} className="rounded-md border border-border px-3 py-2">
          <div className="flex items-baseline gap-2 text-[12px]">
            <span className="truncate font-medium">{f.name || "Anonymous"}</span>
            {f.email ? <span className="truncate text-fg-dim">{f.email}</span> : null}
            <TimeAgo ms={f.createdAt} now={now} className="ml-auto shrink-0 text-fg-dim" />
          </div>
          <p className="mt-1 break-words whitespace-pre-wrap">{f.comments}</p>
          {f.eventId ? (
            <Link
              href={`${issuePath}?event=${f.eventId}`}
              className="mt-1 inline-block font-mono text-[11.5px] text-fg-muted hover:underline"
            >
              event {f.eventId.slice(0, 12)}
            </Link>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
