import Link from "next/link";
import type { ReplayView } from "@/server/replays/replays";
import { ScrollRegion } from "../kit/scroll-region";
import { TimeAgo } from "../kit/time-ago";
import { formatOffset } from "./format";

function who(r: ReplayView["replay"]): string {
  return r.user.display_name ?? "Anonymous";
}

function Count({ n, tone }: { n: number; tone: string }) {
  return <span className={`tabular ${n > 0 ? `${tone} font-semibold` : "text-fg-dim"}`}>{n}</span>;
}

/** The replays list: who, where, how long, what went wrong (errors, dead and rage clicks), when. */
export function ReplayList({ org, rows, now }: { org: string; rows: ReplayView[]; now: number }) {
  return (
    <ScrollRegion label="Replays" className="rounded-md border border-border">
      <table className="w-full min-w-[760px] border-collapse text-left" data-testid="replay-list">
        <thead className="bg-subtle text-[11.5px] text-fg-muted">
          <tr>
            <th className="px-3 py-2 font-medium">Session</th>
            <th className="px-2 py-2 font-medium">Duration</th>
            <th className="px-2 py-2 text-right font-medium">Errors</th>
            <th className="px-2 py-2 text-right font-medium" title="Clicks nothing reacted to for 7 s">
              Dead
            </th>
            <th className="px-2 py-2 text-right font-medium" title="Five or more clicks nothing reacted to">
              Rage
            </th>
            <th className="px-2 py-2 font-medium">Browser · OS</th>
            <th className="px-3 py-2 text-right font-medium">Started</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {rows.map(({ replay: r, projectSlug, startedAt }) => (
            <tr key={r.id} className="hover:bg-hover" data-testid="replay-row" data-replay-id={r.id}>
              <td className="max-w-[380px] px-3 py-1.5">
                <Link href={`/${encodeURIComponent(org)}/replays/${r.id}`} className="block min-w-0">
                  <span className="block truncate font-semibold">{who(r)}</span>
                  <span className="block truncate font-mono text-[11.5px] text-fg-muted">{r.urls[0] ?? "–"}</span>
                </Link>
              </td>
              <td className="tabular px-2 py-1.5 font-mono text-[12px]">{formatOffset(r.duration * 1000)}</td>
              <td className="px-2 py-1.5 text-right">
                <Count n={r.count_errors} tone="text-danger" />
              </td>
              <td className="px-2 py-1.5 text-right">
                <Count n={r.count_dead_clicks} tone="text-fg" />
              </td>
              <td className="px-2 py-1.5 text-right">
                <Count n={r.count_rage_clicks} tone="text-danger" />
              </td>
              <td className="max-w-[220px] truncate px-2 py-1.5 text-[12px] text-fg-muted">
                {[r.browser.name, r.os.name].filter(Boolean).join(" · ") || "–"}
                <span className="ml-2 font-mono text-fg-dim">{projectSlug}</span>
              </td>
              <td className="px-3 py-1.5 text-right text-[12px] text-fg-muted">
                <TimeAgo ms={startedAt} now={now} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
