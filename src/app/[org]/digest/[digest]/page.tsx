import type { Metadata } from "next";
import Link from "next/link";
import type { DigestLookup } from "@/server/types";
import { DigestEventList } from "@/ui/digests/events";
import { EventReplaySection } from "@/ui/replays/event-replay";
import { orNotFound, queryErrorOf, requireViewer, services } from "../../../_lib/server";

type Params = Promise<{ org: string; digest: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { digest } = await params;
  return { title: `Digest ${safeDecode(digest).slice(0, 40)}` };
}

/** Next may hand the segment over still percent-encoded (`@` as %40); a stray `%` must not throw. */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The server and browser events that share a Next.js digest, server first. */
export default async function DigestPage({ params }: { params: Params }) {
  const { org, digest: rawDigest } = await params;
  const digest = safeDecode(rawDigest).slice(0, 200);
  const orgPath = `/${encodeURIComponent(org)}`;
  const viewer = await requireViewer(`${orgPath}/digest/${encodeURIComponent(digest)}`);
  const s = await services();
  const result = await orNotFound(s.digests.lookup(viewer, org, digest)).then(
    (lookup): { lookup: DigestLookup | null; error: string | null } => ({ lookup, error: null }),
    (err: unknown) => {
      const queryError = queryErrorOf(err);
      if (!queryError) throw err;
      return { lookup: null, error: queryError.message };
    },
  );
  const now = Date.now();
  const events = result.lookup?.events ?? [];
  const servers = events.filter((e) => e.side === "server").length;
  // The browser session that hit the digest (issue 40): the replay of its newest client event that has one.
  const clients = events.filter((e) => e.side === "client");
  const session = await s.replays
    .forEvents(
      viewer,
      org,
      clients.map((e) => e.eventId),
    )
    .catch(() => null);
  const sessionEvent = session ? clients.find((e) => e.eventId === session.eventId) : undefined;
  return (
    <main className="mx-auto max-w-[1200px] px-4 py-4">
      <nav aria-label="Breadcrumb" className="mb-3 text-[12.5px] text-fg-muted">
        <Link href={`${orgPath}/issues`} className="hover:text-fg">
          ← Issues
        </Link>
      </nav>
      <h1 className="text-[18px] font-semibold">
        Digest <code className="font-mono">{digest}</code>
      </h1>
      <p className="mt-1 max-w-[760px] text-[13px] text-fg-muted">
        Next.js shows this number instead of a server error in production. Events from the server (onRequestError) and from the browser
        (error.tsx) that carry it are listed here, server first. A digest is a hash of the error&apos;s message and stack: the same error
        thrown again has the same digest.
      </p>
      <div className="mt-4">
        {result.error ? (
          <div role="alert" className="rounded-md border border-danger px-4 py-3">
            {result.error}
          </div>
        ) : events.length === 0 ? (
          <div className="rounded-md border border-border px-6 py-10 text-center text-fg-muted">
            <p className="font-medium text-fg">No event carries this digest.</p>
            <p className="mt-1">
              Events get a digest when the Next.js SDK sends it: see &ldquo;Next.js&rdquo; in the README for the two-line{" "}
              <code>beforeSend</code> hook.
            </p>
          </div>
        ) : (
          <>
            <p className="mb-2 text-[12.5px] text-fg-muted" data-testid="digest-summary">
              {servers} server · {events.length - servers} browser
              {result.lookup?.truncated ? " · showing the newest 100" : ""}
            </p>
            <DigestEventList org={org} events={events} now={now} />
            {session ? (
              <EventReplaySection
                org={org}
                replay={session.replay}
                errorAt={session.errorAt}
                errorLabel={sessionEvent?.issueTitle ?? "Error"}
                title="The browser session that hit this digest"
              />
            ) : null}
          </>
        )}
      </div>
    </main>
  );
}
