import Link from "next/link";
import type { DigestEvent, IssueDetail } from "@/server/types";
import { countOf } from "../kit/format";
import { TimeAgo } from "../kit/time-ago";
import { IssueFlagBadges } from "./badges";
import { DigestSideBadge } from "./events";

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
                <LinkedDigestRow key={l.issueId} link={l} orgPath={orgPath} now={now} />
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </section>
  );
}

/**
 * One issue on the other side of a digest, on two lines so a 300 px sidebar (and a phone) never
 * squeezes the title away: side, short id and time on top (wrapping rather than clipping), then the
 * title, which wraps up to three lines (the full title is its tooltip). Short id and title both open that issue.
 */
function LinkedDigestRow({ link: l, orgPath, now }: { link: DigestEvent; orgPath: string; now: number }) {
  const href = `${orgPath}/issues/${l.issueId}`;
  const title = l.issueTitle || "(no title)";
  return (
    <li className="min-w-0 py-2 text-[13px]" data-testid="linked-digest-row" data-side={l.side}>
      <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
        <DigestSideBadge side={l.side} />
        <Link href={href} className="font-mono text-[12px] text-fg-muted hover:underline" data-testid="linked-short-id">
          {l.issueShortId}
        </Link>
        <span
          className="ml-auto whitespace-nowrap font-mono text-[12px] text-fg-dim"
          title={`event ${l.eventId}`}
          data-testid="linked-time"
        >
          {l.count > 1 ? `${countOf(l.count, "event")} · ` : ""}
          <TimeAgo ms={l.receivedAt} now={now} />
        </span>
      </div>
      <Link
        href={href}
        title={title}
        className="mt-0.5 line-clamp-3 break-words font-semibold [overflow-wrap:anywhere] hover:underline"
        data-testid="linked-title"
      >
        {title}
      </Link>
      <div className="mt-0.5 font-mono text-[12px] text-fg-muted [overflow-wrap:anywhere]">
        digest{" "}
        <Link href={`${orgPath}/digest/${encodeURIComponent(l.key)}`} className="hover:underline">
          {l.digest}
        </Link>
      </div>
    </li>
  );
}
