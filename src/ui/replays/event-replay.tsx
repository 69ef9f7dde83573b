import Link from "next/link";
import { preload } from "react-dom";
import type { EventReplay } from "@/server/replays/replays";
import { segmentUrl } from "./load-segments";
import { ReplayPlayer } from "./player";

/** Sentry's recording-segments URL of a replay, which the player reads. */
export function segmentsUrl(org: string, projectSlug: string, replayId: string): string {
  return `/api/0/projects/${encodeURIComponent(org)}/${encodeURIComponent(projectSlug)}/replays/${replayId}/recording-segments/`;
}

/**
 * Asks the browser (from the server render) to fetch the first segment while the page's scripts
 * load: the player's own request for the same URL is then answered from that preload, and its
 * first frame does not wait for hydration before the recording starts arriving.
 */
export function preloadFirstSegment(url: string, segmentIds?: number[]): void {
  preload(segmentUrl(url, segmentIds?.[0] ?? 0), { as: "fetch", crossOrigin: "anonymous" });
}

/** How far before the error the player opens: the last clicks leading to it. */
export const LEAD_MS = 5000;

/**
 * The session replay of an error event (its `replayId` tag or replay context), on the issue page
 * and the digest page: the player opens a few seconds before the error. Said plainly when the
 * event names a replay Errata does not have (not sent yet, sampled out, or expired).
 */
export function EventReplaySection({
  org,
  replay,
  errorAt,
  errorLabel,
  title = "Session replay",
}: {
  org: string;
  replay: EventReplay;
  /** the error's time (epoch ms) */
  errorAt: number | null;
  errorLabel: string;
  title?: string;
}) {
  const page = `/${encodeURIComponent(org)}/replays/${replay.replayId}`;
  if (replay.stored) preloadFirstSegment(segmentsUrl(org, replay.stored.projectSlug, replay.replayId), replay.stored.segmentIds);
  return (
    <section aria-labelledby="event-replay-title" className="mt-5" data-testid="event-replay">
      <div className="mb-2 flex items-baseline gap-3">
        <h2 id="event-replay-title" className="section-title">
          {title}
        </h2>
        {replay.stored ? (
          <span className="text-[12px] text-fg-muted">
            {errorAt ? "Opens 5 s before the error · " : ""}
            <Link href={errorAt ? `${page}?t=${Math.max(0, errorAt - LEAD_MS)}` : page} className="hover:text-fg">
              Open the whole replay →
            </Link>
          </span>
        ) : null}
      </div>
      {replay.stored ? (
        <ReplayPlayer
          segmentsUrl={segmentsUrl(org, replay.stored.projectSlug, replay.replayId)}
          segmentIds={replay.stored.segmentIds}
          startAt={errorAt ? errorAt - LEAD_MS : null}
          errors={errorAt ? [{ at: errorAt, label: errorLabel }] : []}
          compact
        />
      ) : (
        <p className="rounded-md border border-border px-4 py-3 text-fg-muted">
          This event was captured during session replay <span className="font-mono">{replay.replayId}</span>, which Errata has not received:
          the SDK may still be sending it, its session was not sampled for replay, or its retention has passed.
        </p>
      )}
    </section>
  );
}
