import Link from "next/link";
import type { ReplayDetailView } from "@/server/replays/replays";
import { LevelDot } from "../kit/level";
import { TimeAgo } from "../kit/time-ago";
import { formatOffset } from "./format";

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[110px_minmax(0,1fr)] gap-2 py-1">
      <dt className="text-fg-muted">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

const named = (n: { name: string | null; version?: string | null }) => [n.name, n.version].filter(Boolean).join(" ") || "–";

/** Everything known about a replay beside its player: who, on what, which release, what it saw. */
export function ReplayFacts({ org, detail, now }: { org: string; detail: ReplayDetailView; now: number }) {
  const r = detail.replay;
  const device = r.device.name ?? r.device.model ?? r.device.family;
  return (
    <div className="flex flex-col gap-5">
      <section aria-labelledby="replay-errors-title">
        <h2 id="replay-errors-title" className="section-title mb-2">
          Errors ({r.count_errors})
        </h2>
        {detail.errors.length === 0 ? (
          <p className="text-fg-muted">No error was captured in this session.</p>
        ) : (
          <ul className="flex flex-col gap-1.5" data-testid="replay-errors">
            {detail.errors.map((e) => (
              <li key={e.eventId} className="min-w-0">
                {e.issueId !== null ? (
                  <Link
                    href={`/${encodeURIComponent(org)}/issues/${e.issueId}?event=${e.eventId}`}
                    className="flex min-w-0 items-center gap-1.5 hover:text-fg"
                  >
                    <LevelDot level={e.level ?? "error"} />
                    <span className="shrink-0 font-mono text-[12px]">{e.shortId}</span>
                    <span className="truncate">{e.title}</span>
                  </Link>
                ) : (
                  <span
                    className="text-fg-muted"
                    title="Not stored (not received yet, removed by retention, or in a project you cannot see)"
                  >
                    Event <span className="font-mono">{e.eventId.slice(0, 12)}…</span>
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="replay-facts-title">
        <h2 id="replay-facts-title" className="section-title mb-1">
          Session
        </h2>
        <dl className="text-[12.5px]">
          <Row label="User">
            {r.user.display_name ?? "Anonymous"}
            {r.user.id && r.user.id !== r.user.display_name ? <span className="ml-1 font-mono text-fg-muted">({r.user.id})</span> : null}
          </Row>
          <Row label="Started">
            <TimeAgo ms={detail.startedAt} now={now} />
          </Row>
          <Row label="Duration">
            <span className="font-mono">{formatOffset(r.duration * 1000)}</span>
          </Row>
          <Row label="Browser">{named(r.browser)}</Row>
          <Row label="OS">{named(r.os)}</Row>
          {device ? <Row label="Device">{device}</Row> : null}
          <Row label="Release">{r.releases[0] ? <span className="font-mono">{r.releases[0]}</span> : "–"}</Row>
          <Row label="Environment">{r.environment ?? "–"}</Row>
          <Row label="Project">
            <span className="font-mono">{detail.projectSlug}</span>
          </Row>
          <Row label="Mode">{r.replay_type === "buffer" ? "buffer (sent when an error happened)" : "session"}</Row>
          <Row label="Clicks">
            <span className="tabular">
              {r.count_dead_clicks} dead · {r.count_rage_clicks} rage
            </span>
          </Row>
          <Row label="Segments">
            <span className="tabular">{r.count_segments}</span>
          </Row>
          <Row label="SDK">{named(r.sdk)}</Row>
        </dl>
      </section>
      <section aria-labelledby="replay-urls-title">
        <h2 id="replay-urls-title" className="section-title mb-1">
          Pages ({r.urls.length})
        </h2>
        <ol className="flex flex-col gap-0.5 font-mono text-[12px]">
          {r.urls.map((u) => (
            <li key={u} className="break-all text-fg-muted">
              {u}
            </li>
          ))}
        </ol>
      </section>
      {r.trace_ids.length > 0 ? (
        <section aria-labelledby="replay-traces-title">
          <h2 id="replay-traces-title" className="section-title mb-1">
            Traces ({r.trace_ids.length})
          </h2>
          <ul className="flex flex-col gap-0.5 font-mono text-[12px] text-fg-muted">
            {r.trace_ids.map((t) => (
              <li key={t}>
                <Link href={`/${encodeURIComponent(org)}/traces/${encodeURIComponent(t)}`} className="hover:underline">
                  {t}
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
