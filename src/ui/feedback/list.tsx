import Link from "next/link";
import type { FeedbackItem } from "@/server/feedback/inbox";
import { LevelDot } from "../kit/level";
import { TimeAgo } from "../kit/time-ago";

const SOURCE: Record<string, string> = { feedback: "widget", user_report: "user report", crash_report_dialog: "crash dialog" };

/** Only plain web links are made clickable; anything else an end user sent stays text. */
function safeHref(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.toString() : null;
  } catch {
    return null;
  }
}

/** The inbox: who wrote, where from, what they said (text only), and the issue it is about. */
export function FeedbackList({ org, items, now }: { org: string; items: FeedbackItem[]; now: number }) {
  return (
    <ul className="divide-y divide-border rounded-md border border-border" aria-label="Feedback">
      {items.map((f) => {
        const href = f.url ? safeHref(f.url) : null;
        return (
          <li key={f.id} className="px-4 py-3" data-testid="feedback-item">
            <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
              <span className="font-semibold">{f.name || "Anonymous"}</span>
              {f.email ? <span className="text-[12.5px] text-fg-muted">{f.email}</span> : null}
              <span className="ml-auto flex items-center gap-2 text-[12px] text-fg-dim">
                <span className="badge">{SOURCE[f.source] ?? f.source}</span>
                <span className="font-mono">{f.projectSlug}</span>
                <TimeAgo ms={f.createdAt} now={now} />
              </span>
            </div>
            <p className="mt-1.5 max-w-[80ch] break-words whitespace-pre-wrap">{f.comments}</p>
            <div className="mt-1.5 flex flex-wrap items-center gap-x-4 gap-y-1 text-[12px] text-fg-muted">
              {f.issue ? (
                <Link
                  href={`/${encodeURIComponent(org)}/issues/${f.issue.id}`}
                  className="inline-flex min-w-0 items-center gap-1.5 hover:text-fg"
                >
                  <LevelDot level={f.issue.level} />
                  <span className="font-mono">{f.issue.shortId}</span>
                  <span className="max-w-[420px] truncate">{f.issue.title}</span>
                </Link>
              ) : f.eventId ? (
                <span title="The event this feedback names is not stored (not received yet, or removed by retention).">
                  Event <span className="font-mono">{f.eventId.slice(0, 12)}…</span> not stored
                </span>
              ) : (
                <span className="text-fg-dim">Not linked to an error</span>
              )}
              {f.url ? (
                href ? (
                  <a
                    href={href}
                    rel="noopener noreferrer nofollow"
                    target="_blank"
                    className="max-w-[420px] truncate font-mono hover:text-fg"
                  >
                    {f.url}
                  </a>
                ) : (
                  <span className="max-w-[420px] truncate font-mono">{f.url}</span>
                )
              ) : null}
              {f.replayId ? (
                <Link
                  href={`/${encodeURIComponent(org)}/replays/${f.replayId}`}
                  className="inline-flex items-center gap-1 hover:text-fg"
                  data-testid="feedback-replay"
                >
                  ▶ Replay of what they saw
                </Link>
              ) : null}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
