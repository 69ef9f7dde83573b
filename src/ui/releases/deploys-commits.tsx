import type { ReleaseExtras } from "@/server/releases/release-api";
import { TimeAgo } from "../kit/time-ago";

const firstLine = (s: string | null) => (s ?? "").split("\n")[0]?.trim() ?? "";

/** A release's deploys (newest first), as `sentry-cli deploys new` records them. */
export function ReleaseDeploys({ deploys, now }: { deploys: ReleaseExtras["deploys"]; now: number }) {
  if (deploys.length === 0)
    return (
      <p className="mt-2 max-w-prose text-fg-muted">
        No deploys recorded. <code>sentry-cli deploys new -r &lt;version&gt; -e production</code> records one.
      </p>
    );
  return (
    <div className="mt-2 overflow-x-auto rounded-md border border-border">
      <table className="w-full min-w-[480px] border-collapse text-[12.5px]" aria-label="Deploys">
        <thead className="bg-subtle text-left text-[11px] tracking-wide text-fg-muted uppercase">
          <tr>
            <th className="px-3 py-1.5 font-medium">Environment</th>
            <th className="px-3 py-1.5 font-medium">Name</th>
            <th className="px-3 py-1.5 font-medium">URL</th>
            <th className="px-3 py-1.5 text-right font-medium">Finished</th>
          </tr>
        </thead>
        <tbody>
          {deploys.map((d) => (
            <tr key={d.id} className="border-t border-border">
              <td className="px-3 py-1.5 font-medium">{d.environment}</td>
              <td className="px-3 py-1.5 text-fg-muted">{d.name ?? "–"}</td>
              <td className="max-w-[320px] truncate px-3 py-1.5 font-mono text-[12px] text-fg-muted" title={d.url ?? undefined}>
                {d.url ?? "–"}
              </td>
              <td className="px-3 py-1.5 text-right text-fg-muted">
                <TimeAgo ms={d.dateFinished} now={now} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A release's commits as `set-commits` sent them (newest first); refs without details show the sha only. */
export function ReleaseCommits({ commits, now }: { commits: ReleaseExtras["commits"]; now: number }) {
  if (commits.length === 0)
    return (
      <p className="mt-2 max-w-prose text-fg-muted">
        No commits recorded. <code>sentry-cli releases set-commits &lt;version&gt; --auto</code> sends them from the local git history.
      </p>
    );
  return (
    <ul className="mt-2 divide-y divide-border rounded-md border border-border" aria-label="Commits">
      {commits.map((c) => (
        <li key={`${c.repository}:${c.id}`} className="flex items-baseline gap-3 px-3 py-1.5 text-[12.5px]">
          <span className="shrink-0 font-mono text-[12px] text-fg-muted" title={c.id}>
            {c.previousCommit ? `${c.previousCommit.slice(0, 7)}…${c.id.slice(0, 7)}` : c.id.slice(0, 7)}
          </span>
          <span className="min-w-0 flex-1 truncate" title={c.message ?? undefined}>
            {firstLine(c.message) || <span className="text-fg-dim">{c.repository || "commit"}</span>}
          </span>
          <span className="hidden shrink-0 text-fg-muted sm:inline">{c.authorName ?? c.authorEmail ?? ""}</span>
          <span className="shrink-0 text-fg-dim">
            <TimeAgo ms={c.timestamp} now={now} />
          </span>
        </li>
      ))}
    </ul>
  );
}
