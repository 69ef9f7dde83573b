import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { EventSummary } from "@/server/issues/stream";
import type { Page } from "@/server/types";
import { absoluteTime, relativeTime } from "@/ui/kit/format";
import { LevelDot } from "@/ui/kit/level";
import { orNotFound, param, queryErrorOf, redirectShortId, requireViewer, services, withQuery } from "../../../../_lib/server";

export const metadata: Metadata = { title: "Events" };

type Params = Promise<{ org: string; id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The events of one issue, newest first, filterable (level, environment, release, user, text). */
export default async function IssueEventsPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const { org, id } = await params;
  const sp = await searchParams;
  const query = param(sp.query)?.slice(0, 1000) ?? "";
  const cursor = param(sp.cursor) ?? "";
  if (!/^\d{1,15}$/.test(id)) await redirectShortId(org, id, "/events", withQuery("", { query, cursor }));
  const issueId = Number(id);
  if (!Number.isSafeInteger(issueId)) notFound();
  const issuePath = `/${encodeURIComponent(org)}/issues/${issueId}`;
  const base = `${issuePath}/events`;
  const viewer = await requireViewer(withQuery(base, { query, cursor }));
  const s = await services();
  const [issue, result] = await Promise.all([
    orNotFound(s.issues.get(viewer, org, issueId)),
    orNotFound(s.issueStream.events(viewer, org, issueId, { query, cursor: cursor || null, limit: 50 })).then(
      (page): { page: Page<EventSummary>; error: ReturnType<typeof queryErrorOf> } => ({ page, error: null }),
      (err: unknown) => {
        const error = queryErrorOf(err);
        if (!error) throw err;
        return { page: { items: [], nextCursor: null }, error };
      },
    ),
  ]);
  const now = Date.now();
  const { page, error } = result;
  return (
    <main className="mx-auto max-w-[1400px] px-3 py-3 sm:px-4">
      <nav aria-label="Breadcrumb" className="mb-2 flex flex-wrap items-center gap-2 text-[12.5px] text-fg-muted">
        <Link href={`/${encodeURIComponent(org)}/issues`} className="hover:text-fg">
          Issues
        </Link>
        <span aria-hidden="true">/</span>
        <Link href={issuePath} className="min-w-0 truncate hover:text-fg">
          <code>{issue.shortId}</code> {issue.title}
        </Link>
      </nav>
      <h1 className="text-[16px] font-semibold">
        Events <span className="tabular font-normal text-fg-muted">({issue.count.toLocaleString("en")})</span>
      </h1>
      {/* biome-ignore lint/a11y/useSemanticElements: role="search" on the form is the established landmark. */}
      <form method="get" action={base} role="search" className="mt-3 flex gap-2">
        <label htmlFor="event-search" className="sr-only">
          Filter events
        </label>
        <input
          id="event-search"
          name="query"
          type="search"
          defaultValue={query}
          placeholder="environment:production release:1.2.3 level:error user.email:a@b.c text"
          className="input font-mono text-[12.5px]"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "event-search-error" : undefined}
        />
        <button type="submit" className="btn">
          Filter
        </button>
      </form>
      {error ? (
        <p id="event-search-error" role="alert" className="mt-2 rounded-md border border-danger px-3 py-2">
          {error.message}
        </p>
      ) : null}
      <div className="mt-3 overflow-x-auto rounded-md border border-border">
        <table className="stack-table w-full min-w-[820px] table-fixed border-collapse text-[12.5px]">
          <caption className="sr-only">Events of {issue.shortId}, newest first</caption>
          <colgroup>
            <col className="w-[270px]" />
            <col className="w-[90px]" />
            <col />
            <col className="w-[150px]" />
            <col className="w-[120px]" />
            <col className="w-[150px]" />
            <col className="w-[90px]" />
          </colgroup>
          <thead>
            <tr className="h-8 border-b border-border bg-subtle text-left text-[11px] font-medium tracking-wide text-fg-muted uppercase">
              <th scope="col" className="px-3 font-medium">
                Event
              </th>
              <th scope="col" className="px-2 font-medium">
                Level
              </th>
              <th scope="col" className="px-2 font-medium">
                Message
              </th>
              <th scope="col" className="px-2 font-medium">
                Release
              </th>
              <th scope="col" className="px-2 font-medium">
                Environment
              </th>
              <th scope="col" className="px-2 font-medium">
                User
              </th>
              <th scope="col" className="px-3 text-right font-medium">
                Received
              </th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((e) => (
              <tr key={e.eventId} className="h-9 border-b border-border last:border-b-0 hover:bg-hover">
                <td className="truncate px-3 font-mono text-[12px]">
                  <Link href={`${issuePath}?event=${e.eventId}`} className="hover:underline">
                    {e.eventId}
                  </Link>
                </td>
                <td className="px-2" data-label="Level">
                  <span className="inline-flex items-center gap-1.5">
                    <LevelDot level={e.level} />
                    {e.level}
                  </span>
                </td>
                <td className="truncate px-2" title={e.title}>
                  {e.title}
                </td>
                <td className="truncate px-2 font-mono text-[12px]" data-label="Release">
                  {e.release ?? <span className="text-fg-dim">–</span>}
                </td>
                <td className="truncate px-2" data-label="Environment">
                  {e.environment ?? <span className="text-fg-dim">–</span>}
                </td>
                <td className="truncate px-2 font-mono text-[12px]" title={e.userKey ?? undefined} data-label="User">
                  {e.userKey ?? <span className="text-fg-dim">–</span>}
                </td>
                <td className="tabular px-3 text-right text-fg-muted" title={absoluteTime(e.receivedAt)} data-label="Received">
                  {relativeTime(e.receivedAt, now)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {page.items.length === 0 ? (
          <p className="px-4 py-6 text-center text-fg-muted">
            {query ? "No events of this issue match the filter." : "No events are stored for this issue (retention may have removed them)."}
          </p>
        ) : null}
      </div>
      {cursor || page.nextCursor ? (
        <nav aria-label="Pagination" className="mt-3 flex justify-end gap-2">
          {cursor ? (
            <Link className="btn btn-sm" href={withQuery(base, { query })}>
              ← Newest
            </Link>
          ) : null}
          {page.nextCursor ? (
            <Link className="btn btn-sm" href={withQuery(base, { query, cursor: page.nextCursor })}>
              Older →
            </Link>
          ) : null}
        </nav>
      ) : null}
    </main>
  );
}
