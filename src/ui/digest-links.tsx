import Link from "next/link";
import type { DigestEvent, IssueDetail } from "@/server/types";
import { IssueFlagBadges } from "./digest-badges";
import { DigestSideBadge } from "./digest-events";
import { TimeAgo } from "./time-ago";

interface EventDigest {
  value: string;
  key: string;
  side: DigestEvent["side"];
}

/** The digest Errata found on a stored event (`errata.digest`), read defensively. */
function eventDigest(event: Record<string, unknown> | undefined): EventDigest | null {
  const errata = event?.errata;
  if (typeof errata !== "object" || errata === null) return null;
  const d = (errata as { digest?: unknown }).digest;
  if (typeof d !== "object" || d === null) return null;
  const { value, key, side } = d as Record<string, unknown>;
  if (typeof value !== "string" || typeof key !== "string") return null;
  return { value, key, side: side === "server" ? "server" : "client" };
}

/** The decoded React error Errata stored on an event (`errata.react`), read defensively. */
function eventReactError(event: Record<string, unknown> | undefined): { code: number; message: string } | null {
  const errata = event?.errata;
  if (typeof errata !== "object" || errata === null) return null;
  const r = (errata as { react?: unknown }).react;
  if (typeof r !== "object" || r === null) return null;
  const { code, message } = r as Record<string, unknown>;
  return typeof code === "number" && typeof message === "string" ? { code, message } : null;
}

/**
 * The Next.js panel of an issue page: classification badges, the latest event's digest, and the
 * events in other issues that share a digest with this one (the other half of a server error).
 */
export function DigestIssuePanel({
  org,
  issue,
  latestEvent,
  links,
  now,
}: {
  org: string;
  issue: IssueDetail;
  latestEvent?: Record<string, unknown>;
  links: DigestEvent[];
  now: number;
}) {
  const reactError = typeof issue.metadata.react_error === "number" ? issue.metadata.react_error : undefined;
  const digest = eventDigest(latestEvent);
  const decoded = eventReactError(latestEvent);
  const hasBadges = (issue.flags?.length ?? 0) > 0 || reactError !== undefined;
  if (!hasBadges && !digest && !decoded && links.length === 0) return null;
  const orgPath = `/${encodeURIComponent(org)}`;
  return (
    <section aria-label="Next.js" className="mt-4 rounded-md border border-border px-4 py-3">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2 text-[13px]">
        <IssueFlagBadges flags={issue.flags} reactError={reactError} />
        {digest ? (
          <span className="inline-flex items-center gap-2">
            <span className="text-fg-muted">Digest</span>
            <Link
              href={`${orgPath}/digest/${encodeURIComponent(digest.key)}`}
              className="font-mono hover:underline"
              data-testid="issue-digest"
            >
              {digest.value}
            </Link>
            <DigestSideBadge side={digest.side} />
          </span>
        ) : null}
      </div>
      {decoded ? (
        <div className="mt-3">
          <h2 className="section-title">Decoded React error #{decoded.code}</h2>
          <p className="mt-1 text-[13px] whitespace-pre-wrap break-words" data-testid="react-error-message">
            {decoded.message}
          </p>
        </div>
      ) : null}
      {links.length > 0 || digest ? (
        <div className="mt-3">
          <h2 className="section-title">Linked digest events</h2>
          {links.length === 0 ? (
            <p className="mt-1 text-[13px] text-fg-muted">
              No {digest?.side === "server" ? "browser" : "server"} event shares this digest yet
              {digest?.side === "client" ? " (the server side needs onRequestError and the digest hook; see the README)" : ""}.
            </p>
          ) : (
            <ul className="mt-1 divide-y divide-border" data-testid="linked-digest-events">
              {links.map((l) => (
                <li key={l.issueId} className="flex min-w-0 items-center gap-2 py-1.5 text-[13px]">
                  <DigestSideBadge side={l.side} />
                  <Link href={`${orgPath}/issues/${l.issueId}`} className="min-w-0 truncate font-semibold hover:underline">
                    {l.issueTitle || "(no title)"}
                  </Link>
                  <span className="shrink-0 font-mono text-[12px] text-fg-muted">{l.issueShortId}</span>
                  <Link
                    href={`${orgPath}/digest/${encodeURIComponent(l.key)}`}
                    className="shrink-0 font-mono text-[12px] text-fg-muted hover:underline"
                  >
                    {l.digest}
                  </Link>
                  <span className="ml-auto shrink-0 font-mono text-[12px] text-fg-dim" title={`event ${l.eventId}`}>
                    {l.count > 1 ? `${l.count} events · ` : ""}
                    <TimeAgo ms={l.receivedAt} now={now} />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </section>
  );
}
