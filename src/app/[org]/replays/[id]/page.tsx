import type { Metadata } from "next";
import Link from "next/link";
import { DeleteReplayForm } from "@/ui/replays/delete-form";
import { preloadFirstSegment, segmentsUrl } from "@/ui/replays/event-replay";
import { ReplayFacts } from "@/ui/replays/facts";
import { ReplayPlayer } from "@/ui/replays/player";
import { orNotFound, param, requireViewer, services } from "../../../_lib/server";
import { deleteReplay } from "../actions";

type Params = Promise<{ org: string; id: string }>;

export const metadata: Metadata = { title: "Replay" };

/** One replay: the player with its breadcrumb timeline, and who, on what, with which errors. */
export default async function ReplayPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org, id } = await params;
  const t = Number(param((await searchParams).t));
  const orgPath = `/${encodeURIComponent(org)}`;
  const viewer = await requireViewer(`${orgPath}/replays/${encodeURIComponent(id)}`);
  const s = await services();
  const detail = await orNotFound(s.replays.detail(viewer, org, id));
  const r = detail.replay;
  const errors = detail.errors
    .filter((e) => e.timestamp !== null)
    .map((e) => ({
      at: e.timestamp as number,
      label: e.title ?? e.eventId,
      href: e.issueId !== null ? `${orgPath}/issues/${e.issueId}?event=${e.eventId}` : null,
    }));
  const now = Date.now();
  preloadFirstSegment(segmentsUrl(org, detail.projectSlug, r.id), detail.segmentIds);
  return (
    <main className="mx-auto max-w-[1400px] px-3 py-3 sm:px-4">
      <nav aria-label="Breadcrumb" className="mb-2 text-[12.5px] text-fg-muted">
        <Link href={`${orgPath}/replays`} className="hover:text-fg touch:inline-flex touch:min-h-7 touch:items-center">
          ← Replays
        </Link>
      </nav>
      <header className="mb-3 flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="min-w-0 truncate text-[17px] font-semibold">{r.user.display_name ?? "Anonymous"}</h1>
        <span className="min-w-0 truncate font-mono text-[12px] text-fg-muted">{r.urls[0] ?? ""}</span>
        <span className="ml-auto font-mono text-[11.5px] text-fg-dim">{r.id}</span>
      </header>
      <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_320px]">
        <div className="min-w-0">
          <ReplayPlayer
            segmentsUrl={segmentsUrl(org, detail.projectSlug, r.id)}
            startAt={Number.isFinite(t) && t > 0 ? t : null}
            errors={errors}
          />
        </div>
        <aside aria-label="Replay details" className="flex min-w-0 flex-col gap-5">
          <ReplayFacts org={org} detail={detail} now={now} />
          {detail.canDelete ? <DeleteReplayForm org={org} project={detail.projectSlug} replayId={r.id} action={deleteReplay} /> : null}
        </aside>
      </div>
    </main>
  );
}
