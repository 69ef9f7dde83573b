import Link from "next/link";
import type { IssueSummary } from "@/server/types";
import { compactCount, countOf, nounFor } from "../kit/format";
import { LevelBar } from "../kit/level";
import { TimeAgo } from "../kit/time-ago";

/** Issues of a release (new in it, or regressed with it): level · title over culprit · id · events · when. */
export function ReleaseIssueList({
  org,
  items,
  now,
  whenLabel,
  empty,
  label,
}: {
  org: string;
  items: Array<{ issue: IssueSummary; at: number }>;
  now: number;
  whenLabel: string;
  empty: string;
  label: string;
}) {
  if (items.length === 0) return <p className="text-fg-muted">{empty}</p>;
  return (
    <ul className="divide-y divide-border rounded-md border border-border" aria-label={label}>
      {items.map(({ issue, at }) => (
        <li key={issue.id}>
          <Link href={`/${encodeURIComponent(org)}/issues/${issue.id}`} className="flex items-stretch gap-3 px-3 py-2 hover:bg-hover">
            <LevelBar level={issue.level} className="my-0.5" />
            <span className="min-w-0 flex-1">
              <span className="flex min-w-0 items-start gap-2 sm:items-center">
                <span className="line-clamp-2 font-semibold break-words sm:truncate">{issue.title}</span>
                <IssueState status={issue.status} substatus={issue.substatus} />
              </span>
              <span className="block truncate font-mono text-[12px] text-fg-dim">{issue.culprit || "—"}</span>
            </span>
            <span className="hidden w-[88px] shrink-0 self-center font-mono text-[12px] text-fg-muted sm:block">{issue.shortId}</span>
            <span className="tabular w-[40px] shrink-0 self-center text-right sm:w-[64px]" title={countOf(issue.count, "event")}>
              {compactCount(issue.count)}
              <span className="sr-only"> {nounFor(issue.count, "event")}</span>
            </span>
            <span className="w-[64px] shrink-0 self-center text-right text-[12px] text-fg-muted sm:w-[84px]">
              <span className="sr-only">{whenLabel} </span>
              <TimeAgo ms={at} now={now} />
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Quiet outline badge: resolved / ignored / new / regressed (ongoing unresolved shows nothing). */
function IssueState({ status, substatus }: { status: string; substatus: string }) {
  const label =
    status === "resolved" || status === "ignored" ? status : substatus === "new" || substatus === "regressed" ? substatus : null;
  return label ? <span className="badge">{label}</span> : null;
}
