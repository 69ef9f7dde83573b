import type { ReactNode } from "react";
import type { IssueDetail } from "@/server/types";
import { CopyButton } from "../kit/copy-button";
import { LevelBar, LevelLabel } from "../kit/level";
import { TimeAgo } from "../kit/time-ago";

/**
 * Issue page header: short id, level, project, title, culprit, the status actions (a slot: the
 * client bar), counts, first/last seen with their releases.
 */
export function IssueHeader({ issue, now, actions }: { issue: IssueDetail; now: number; actions?: ReactNode }) {
  return (
    <header className="relative pl-4">
      <LevelBar level={issue.level} className="absolute top-1 bottom-1 left-0" />
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-[12.5px] text-fg-muted">
        <span className="inline-flex items-center gap-1">
          <code className="text-fg">{issue.shortId}</code>
          <CopyButton text={issue.shortId} label="Copy short id" className="btn-ghost" />
        </span>
        <LevelLabel level={issue.level} />
        <span className="font-mono text-[12px]">{issue.projectSlug}</span>
      </div>
      <h1 className="mt-1 text-[18px] leading-snug font-semibold break-words">{issue.title || "(no title)"}</h1>
      {issue.culprit ? <p className="mt-0.5 font-mono text-[12.5px] break-all text-fg-dim">{issue.culprit}</p> : null}
      {actions ? <div className="mt-2.5">{actions}</div> : null}
      <dl className="mt-3 flex flex-wrap gap-x-8 gap-y-2">
        <Stat label="Events">
          <span className="tabular">{issue.count.toLocaleString("en")}</span>
        </Stat>
        <Stat label="Users">
          <span className="tabular">{issue.userCount.toLocaleString("en")}</span>
        </Stat>
        <Stat label="First seen">
          <TimeAgo ms={issue.firstSeen} now={now} />
          {issue.firstRelease ? <span className="ml-1.5 font-mono text-[12px] text-fg-muted">in {issue.firstRelease}</span> : null}
        </Stat>
        <Stat label="Last seen">
          <TimeAgo ms={issue.lastSeen} now={now} />
          {issue.lastRelease ? <span className="ml-1.5 font-mono text-[12px] text-fg-muted">in {issue.lastRelease}</span> : null}
        </Stat>
      </dl>
    </header>
  );
}

function Stat({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-[11px] font-medium tracking-wide text-fg-muted uppercase">{label}</dt>
      <dd className="text-[14px]">{children}</dd>
    </div>
  );
}
