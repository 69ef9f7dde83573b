import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import type { IssueDetail } from "@/server/types";
import { DigestIssuePanel } from "@/ui/digests/links";
import { isObj, Problems, readFacts, readTags } from "@/ui/events/model";
import { EventView } from "@/ui/events/view";
import { FeedbackList } from "@/ui/feedback/issue-feedback";
import { IssueActionsBar } from "@/ui/issues/actions-bar";
import { ActivityLog } from "@/ui/issues/activity-log";
import { CommentForm } from "@/ui/issues/comment-form";
import { GroupingHashes } from "@/ui/issues/grouping-hashes";
import { IssueHeader } from "@/ui/issues/header";
import { TagDistributions } from "@/ui/issues/tag-distribution";
import { IssueTrackersPanel } from "@/ui/issues/trackers";
import { TrendChart } from "@/ui/issues/trend-chart";
import { absoluteTime } from "@/ui/kit/format";
import { IssueOwnershipPanel } from "@/ui/ownership/issue-ownership";
import { EventReplaySection } from "@/ui/replays/event-replay";
import { IssueReplays } from "@/ui/replays/issue-replays";
import { TracePanel, traceIdOf } from "@/ui/traces/panel";
import { currentViewer, errorCode, orNotFound, param, redirectShortId, requireViewer, services } from "../../../_lib/server";
import {
  commentOnIssue,
  deleteIssues,
  linkTrackerIssue,
  mergeInto,
  mergeIssues,
  muteIssueAlerts,
  unlinkTrackerIssue,
  unmergeHash,
  unmuteIssueAlerts,
  updateIssues,
} from "../actions";

type Params = Promise<{ org: string; id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  try {
    const { org, id } = await params;
    const viewer = await currentViewer();
    if (!viewer || !/^\d{1,15}$/.test(id)) return { title: "Issue" };
    const issue = await (await services()).issues.get(viewer, org, Number(id));
    return { title: `${issue.shortId}: ${issue.title}` };
  } catch {
    return { title: "Issue" };
  }
}

/** How the issue is resolved or ignored, in a few words (null when unresolved or plainly resolved). */
function statusNote(issue: IssueDetail): string | null {
  const r = issue.resolution;
  if (issue.status === "resolved" && r)
    return r.kind === "in_release" ? `in ${r.release}` : r.kind === "in_next_release" ? "in the next release" : null;
  const i = issue.ignore;
  if (issue.status !== "ignored" || !i) return null;
  if (i.kind === "forever") return "forever";
  if (i.kind === "until_time") return `until ${absoluteTime(i.until)}`;
  if (i.kind === "until_events") return `until ${i.count} more events`;
  return `until ${i.count} more users`;
}

export default async function IssuePage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const { org, id } = await params;
  const eventParam = param((await searchParams).event)?.slice(0, 64);
  if (!/^\d{1,15}$/.test(id)) await redirectShortId(org, id, "", eventParam ? `?event=${encodeURIComponent(eventParam)}` : "");
  const issueId = Number(id);
  if (!Number.isSafeInteger(issueId)) notFound();
  const orgPath = `/${encodeURIComponent(org)}`;
  const issuePath = `${orgPath}/issues/${issueId}`;
  const viewer = await requireViewer(`${issuePath}${eventParam ? `?event=${encodeURIComponent(eventParam)}` : ""}`);
  const s = await services();
  const [data, digestLinks, hashes, alertMute, ownership, trackers, can] = await Promise.all([
    orNotFound(
      s.issueStream.issuePage(viewer, org, issueId, { event: eventParam }).catch(async (err: unknown) => {
        // A merged issue's URL leads to the issue that absorbed it.
        const target = errorCode(err) === "not_found" ? await s.issueRedirects.target(viewer, org, issueId) : null;
        if (target !== null) redirect(`${orgPath}/issues/${target}`);
        throw err;
      }),
    ),
    // A secondary panel: it never fails the issue page.
    s.digests.linkedForIssue(viewer, org, issueId).catch(() => []),
    s.issueUnmerge.hashes(viewer, org, issueId).catch(() => []),
    s.alerts.issueMute(viewer, org, issueId).catch(() => null),
    // Secondary too: owners and suspect commits.
    s.ownership.forIssue(viewer, org, issueId).catch(() => null),
    s.trackers.forIssue(viewer, org, issueId).catch(() => null),
    // What the role allows (the permission table): only those controls are shown.
    orNotFound(s.orgs.can(viewer, org)),
  ]);
  const { issue, event } = data;
  const traceId = event ? traceIdOf(event.event) : null;
  // A secondary panel like the digest links: it never fails the issue page.
  const trace = traceId ? await s.traces.forIssue(viewer, org, issueId, traceId).catch(() => null) : null;
  // The session replay the event was captured in (issue 40): secondary, never fails the page.
  const replay = event && isObj(event.event) ? await s.replays.forEvent(viewer, org, event.event).catch(() => null) : null;
  const errorAt = event && typeof event.event.timestamp === "number" ? Math.round(event.event.timestamp * 1000) : null;
  // Every session replay that saw one of this issue's errors (the SDK's links), for the side column.
  const issueReplays = (await s.replays.forIssues(viewer, org, [issueId], 5).catch(() => null))?.get(issueId) ?? [];
  // A server error with no replay of its own: the browser session that hit the same Next.js digest.
  const digestSession =
    replay || digestLinks.length === 0
      ? null
      : await s.replays
          .forEvents(
            viewer,
            org,
            digestLinks.filter((l) => l.side === "client").map((l) => l.eventId),
          )
          .catch(() => null);
  const now = Date.now();
  const eventTags = new Map(event && isObj(event.event) ? [...readFacts(event.event), ...readTags(event.event, new Problems())] : []);
  const href = (eid: string | null) => (eid && eid !== event?.eventId ? `${issuePath}?event=${eid}` : null);
  const comments = data.activity.filter((a) => a.kind === "comment").length;

  return (
    <main className="mx-auto max-w-[1400px] px-3 py-3 sm:px-4">
      <nav aria-label="Breadcrumb" className="mb-2 flex items-center gap-3 text-[12.5px] text-fg-muted">
        <Link href={`${orgPath}/issues`} className="hover:text-fg touch:inline-flex touch:min-h-7 touch:items-center">
          ← Issues
        </Link>
        <span className="ml-auto flex gap-3">
          <Link href={`${issuePath}/events`} className="hover:text-fg touch:inline-flex touch:min-h-7 touch:items-center">
            All events
          </Link>
          <a href="#activity" className="hover:text-fg touch:inline-flex touch:min-h-7 touch:items-center">
            Activity{comments ? ` (${comments})` : ""}
          </a>
        </span>
      </nav>
      <IssueHeader
        issue={issue}
        now={now}
        actions={
          <IssueActionsBar
            org={org}
            issue={{
              id: issue.id,
              shortId: issue.shortId,
              status: issue.status,
              substatus: issue.substatus,
              statusNote: statusNote(issue),
              lastRelease: issue.lastRelease,
              assignee: issue.assignee,
            }}
            members={data.members}
            meId={viewer.userId}
            canDelete={can["issue.delete"]}
            readOnly={!can["issue.update"]}
            alertMute={alertMute}
            actions={{ updateIssues, mergeIssues, deleteIssues, commentOnIssue, mergeInto, muteIssueAlerts, unmuteIssueAlerts }}
            streamHref={`${orgPath}/issues`}
            eventLinks={{
              first: href(data.nav.first),
              older: href(data.nav.older),
              newer: href(data.nav.newer),
              latest: href(data.nav.latest),
            }}
          />
        }
      />
      <div className="mt-4 grid gap-6 xl:grid-cols-[minmax(0,1fr)_300px]">
        <div className="min-w-0">
          <TrendChart
            hourly={data.trend.hourly}
            hourlyStart={data.trend.hourlyStart}
            daily={data.trend.daily}
            dailyStart={data.trend.dailyStart}
          />
          <div className="mt-5">
            {event ? (
              <EventView detail={event} now={now} nav={data.nav} issuePath={issuePath} attachments={data.attachments} />
            ) : (
              <p className="rounded-md border border-border px-4 py-6 text-fg-muted">
                No event is stored for this issue (retention may have removed them); its counts and history remain.
              </p>
            )}
          </div>
          {replay ? <EventReplaySection org={org} replay={replay} errorAt={errorAt} errorLabel={issue.title} /> : null}
          {digestSession ? (
            <EventReplaySection
              org={org}
              replay={digestSession.replay}
              errorAt={digestSession.errorAt}
              errorLabel={digestLinks.find((l) => l.eventId === digestSession.eventId)?.issueTitle ?? "Browser error"}
              title="Session replay of the browser that hit this digest"
            />
          ) : null}
          {traceId ? (
            <TracePanel
              traceId={traceId}
              trace={trace}
              href={`/${encodeURIComponent(org)}/traces/${traceId.replace(/-/g, "").toLowerCase()}`}
            />
          ) : null}
          <section id="activity" aria-labelledby="activity-title" className="mt-8 scroll-mt-24">
            <h2 id="activity-title" className="section-title mb-2">
              Activity
            </h2>
            {can["issue.comment"] ? <CommentForm org={org} issueId={issue.id} comment={commentOnIssue} /> : null}
            <div className="mt-4">
              <ActivityLog items={data.activity} now={now} />
            </div>
          </section>
        </div>
        <aside aria-label="Issue details" className="flex min-w-0 flex-col gap-5">
          {ownership ? (
            <IssueOwnershipPanel
              data={ownership}
              now={now}
              settingsHref={can["project.write"] ? `${orgPath}/projects/${encodeURIComponent(issue.projectSlug)}/settings/ownership` : null}
            />
          ) : null}
          {trackers ? (
            <IssueTrackersPanel
              org={org}
              issueId={issue.id}
              data={trackers}
              actions={{ link: linkTrackerIssue, unlink: unlinkTrackerIssue }}
              settingsHref={
                trackers.canConfigure ? `${orgPath}/projects/${encodeURIComponent(issue.projectSlug)}/settings/ownership#trackers` : null
              }
            />
          ) : null}
          <DigestIssuePanel org={org} issue={issue} latestEvent={event?.event} links={digestLinks} now={now} />
          {issueReplays.length > 0 ? <IssueReplays org={org} replays={issueReplays} now={now} /> : null}
          <section aria-labelledby="tags-title">
            <h2 id="tags-title" className="section-title mb-2">
              Tags
            </h2>
            <TagDistributions tags={data.tags} streamPath={`${orgPath}/issues`} current={eventTags} />
          </section>
          {hashes.length > 0 ? (
            <section aria-labelledby="hashes-title">
              <h2 id="hashes-title" className="section-title mb-2">
                Grouping
              </h2>
              <GroupingHashes
                org={org}
                issueId={issue.id}
                hashes={hashes}
                canUnmerge={can["issue.update"]}
                unmerge={unmergeHash}
                streamHref={`${orgPath}/issues`}
              />
            </section>
          ) : null}
          {data.feedback.length > 0 ? (
            <section aria-labelledby="feedback-title">
              <h2 id="feedback-title" className="section-title mb-2">
                User feedback
              </h2>
              <FeedbackList items={data.feedback} issuePath={issuePath} now={now} />
            </section>
          ) : null}
        </aside>
      </div>
    </main>
  );
}
