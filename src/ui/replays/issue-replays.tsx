import Link from "next/link";
import type { ReplayView } from "@/server/replays/replays";
import { TimeAgo } from "../kit/time-ago";
import { formatOffset } from "./format";

/** The issue's session replays (sessions that hit one of its errors), newest first, in the issue's side column. */
export function IssueReplays({ org, replays, now }: { org: string; replays: ReplayView[]; now: number }) {
  return (
    <section aria-labelledby="issue-replays-title" data-testid="issue-replays">
      <h2 id="issue-replays-title" className="section-title mb-2">
        Session replays ({replays.length}
        {replays.length >= 5 ? "+" : ""})
      </h2>
      <ul className="flex flex-col gap-1.5 text-[12.5px]">
        {replays.map(({ replay: r, startedAt }) => (
          <li key={r.id} className="min-w-0">
            <Link href={`/${encodeURIComponent(org)}/replays/${r.id}`} className="flex min-w-0 items-baseline gap-2 hover:text-fg">
              <span className="min-w-0 flex-1 truncate">{r.user.display_name ?? "Anonymous"}</span>
              <span className="tabular shrink-0 font-mono text-[11.5px] text-fg-muted">{formatOffset(r.duration * 1000)}</span>
              <TimeAgo ms={startedAt} now={now} className="shrink-0 text-[11.5px] text-fg-dim" />
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
