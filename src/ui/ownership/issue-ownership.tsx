import type { IssueOwnership } from "@/server/ownership/ownership";
import { relativeTime } from "../kit/format";

/**
 * The issue page's ownership panel: owners the rules suggest (the winning rule first, each with
 * the rule that matched) and the suspect commits of the issue's first event with their authors.
 * Everything here comes from users or SDKs and is rendered as text.
 */
export function IssueOwnershipPanel({ data, settingsHref, now }: { data: IssueOwnership; settingsHref: string | null; now: number }) {
  const top = data.suspects[0];
  return (
    <>
      <section aria-labelledby="owners-title" data-testid="issue-owners">
        <h2 id="owners-title" className="section-title mb-2">
          Suggested assignees
        </h2>
        {data.owners.length === 0 ? (
          <div className="text-[12.5px] text-fg-muted" data-testid="owners-none">
            <p>
              No ownership rule matches.{" "}
              {settingsHref ? (
                <a href={settingsHref} className="underline hover:text-fg">
                  Write rules
                </a>
              ) : null}
            </p>
            {data.hint && data.hint.tried.length > 0 ? (
              <>
                <p className="mt-1.5">Frame paths tried:</p>
                <ul className="mt-0.5 flex flex-col gap-0.5" data-testid="owners-tried">
                  {data.hint.tried.map((p) => (
                    <li key={p} className="min-w-0">
                      <code className="block truncate text-[11.5px] text-fg-dim" title={p}>
                        {p}
                      </code>
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
            {data.hint?.suggestion ? (
              <p className="mt-1.5" data-testid="owners-suggestion">
                A rule that would match: <code className="break-all text-fg">{data.hint.suggestion} #team</code>
              </p>
            ) : null}
          </div>
        ) : (
          <ul className="flex flex-col gap-1.5">
            {data.owners.slice(0, 8).map((o, i) => (
              <li key={o.owner.id} className="min-w-0 text-[12.5px]">
                <span className="font-medium">{o.owner.name || o.owner.email}</span>
                {i === 0 ? <span className="badge ml-1.5">owner</span> : null}
                <code className="block truncate text-[11.5px] text-fg-dim" title={`line ${o.line}: ${o.rule}`}>
                  {o.rule}
                </code>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="suspects-title" data-testid="suspect-commits">
        <h2 id="suspects-title" className="section-title mb-2">
          Suspect commit
        </h2>
        {top ? (
          <div className="rounded-md border border-border px-3 py-2 text-[12.5px]">
            <p className="truncate font-medium" title={top.message ?? undefined}>
              {(top.message ?? "").split("\n")[0] || "(no message)"}
            </p>
            <p className="mt-0.5 text-fg-muted">
              {top.author.member ? (
                <span className="text-fg">{top.author.member.name || top.author.member.email}</span>
              ) : (
                <span>{top.author.name ?? top.author.email ?? "Unknown author"}</span>
              )}
              {top.author.member ? null : top.author.email ? (
                <span className="text-fg-dim"> ({top.author.email}, not a member)</span>
              ) : null}
              {top.timestamp ? <span> · {relativeTime(top.timestamp, now)}</span> : null}
            </p>
            <p className="mt-0.5 truncate font-mono text-[11.5px] text-fg-dim" title={`${top.repository} ${top.id}`}>
              {top.id.slice(0, 12)} · {top.file}
            </p>
            {data.suspects.length > 1 ? (
              <p className="mt-1 text-[12px] text-fg-dim">
                {data.suspects.length - 1} more:{" "}
                {data.suspects
                  .slice(1)
                  .map((s) => s.id.slice(0, 7))
                  .join(", ")}
              </p>
            ) : null}
          </div>
        ) : (
          <p className="text-[12.5px] text-fg-muted">
            {data.release
              ? `No commit of release ${data.release} touched this issue's in-app frames.`
              : "The first event names no release: suspect commits need `sentry-cli releases set-commits`."}
          </p>
        )}
      </section>
    </>
  );
}
