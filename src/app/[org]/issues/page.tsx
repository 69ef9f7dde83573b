import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import type { IssueSort, StatusFilter, StreamPage } from "@/server/issues/stream";
import type { UserRef } from "@/server/types";
import { StreamEmpty } from "@/ui/issues/stream/empty";
import { type FilterValues, StreamFilters } from "@/ui/issues/stream/filters";
import { IssueStream } from "@/ui/issues/stream/issue-stream";
import { LiveUpdates } from "@/ui/issues/stream/live-updates";
import { toStreamRow } from "@/ui/issues/stream/row";
import { orNotFound, param, queryErrorOf, requireViewer, services, withQuery } from "../../_lib/server";
import { commentOnIssue, deleteIssues, mergeIssues, updateIssues } from "./actions";

export const metadata: Metadata = { title: "Issues" };

type SearchParams = Record<string, string | string[] | undefined>;

const SORTS = new Set(["date", "new", "freq", "user"]);
const STATUSES = new Set(["unresolved", "resolved", "ignored", "regressed", "all"]);

function readValues(sp: SearchParams): FilterValues & { cursor: string } {
  const p = (k: string, max = 200) => param(sp[k])?.slice(0, max) ?? "";
  const sort = p("sort");
  const status = p("status");
  return {
    query: p("query", 1000),
    project: p("project"),
    environment: p("environment"),
    release: p("release"),
    level: p("level"),
    status: STATUSES.has(status) ? status : "",
    assigned: p("assigned", 320),
    sort: SORTS.has(sort) ? sort : "date",
    stats: p("stats") === "14d" ? "14d" : "24h",
    cursor: p("cursor"),
  };
}

export default async function IssuesPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { org } = await params;
  const v = readValues(await searchParams);
  const base = `/${encodeURIComponent(org)}/issues`;
  const { cursor, ...filters } = v;
  const viewer = await requireViewer(withQuery(base, { ...filters, cursor }));
  const s = await services();
  const query = v.query.trim();
  // A pasted event id or short id opens its issue; a Next.js digest opens its server error.
  if (query && !cursor && !query.includes(":")) {
    const [pasted, digest] = await Promise.all([
      s.issueStream.openPasted(viewer, org, query).catch(() => null),
      s.digests.resolvePasted(viewer, org, query).catch(() => null),
    ]);
    if (pasted) redirect(`${base}/${pasted.issueId}${pasted.eventId ? `?event=${pasted.eventId}` : ""}`);
    if (digest) redirect(`${base}/${digest.issueId}`);
  }
  const now = Date.now();
  const [projects, options, result, can] = await Promise.all([
    orNotFound(s.projects.list(viewer, org)),
    s.issueStream
      .filterOptions(viewer, org, { project: v.project })
      .catch(() => ({ environments: [], releases: [], members: [] as UserRef[] })),
    orNotFound(
      s.issueStream.list(viewer, org, {
        query: v.query,
        project: v.project || undefined,
        environment: v.environment || undefined,
        release: v.release || undefined,
        level: v.level || undefined,
        status: (v.status || undefined) as StatusFilter | undefined,
        assigned: v.assigned || undefined,
        sort: v.sort as IssueSort,
        stats: v.stats as "24h" | "14d",
        cursor: cursor || null,
        limit: 50,
      }),
    ).then(
      (page): { page: StreamPage | null; queryError: ReturnType<typeof queryErrorOf> } => ({ page, queryError: null }),
      (err: unknown) => {
        const queryError = queryErrorOf(err);
        if (!queryError) throw err;
        return { page: null, queryError };
      },
    ),
    // What the role allows (the permission table): only those controls are shown.
    orNotFound(s.orgs.can(viewer, org)),
  ]);
  const { page, queryError } = result;
  const members = new Map(options.members.map((m) => [m.id, m]));
  const links = page ? await s.trackers.linksOf(page.items.map((i) => i.id)) : new Map();
  const rows = page ? page.items.map((i) => toStreamRow(org, i, page, members, now, links.get(i.id) ?? null)) : [];
  const filtered = Boolean(
    v.query || v.project || v.environment || v.release || v.level || v.assigned || (v.status && v.status !== "unresolved") || cursor,
  );
  const shown: FilterValues = { ...filters, status: page?.status ?? (v.status || "unresolved") };
  const keep = { ...filters, sort: v.sort === "date" ? "" : v.sort, stats: v.stats === "24h" ? "" : v.stats };
  // An empty default view: waiting for the first event, or all clear?
  const anyIssues =
    rows.length === 0 && !filtered && !queryError && projects.length > 0
      ? (await s.issueStream.search(viewer, org, { status: "all", limit: 1 })).items.length > 0
      : true;

  return (
    <main className="mx-auto max-w-[1400px] px-3 py-3 sm:px-4">
      <h1 className="sr-only">Issues</h1>
      <StreamFilters
        action={base}
        org={org}
        values={shown}
        error={queryError}
        choices={{
          projects: projects.map((p) => ({ slug: p.slug, name: p.name })),
          environments: options.environments,
          releases: options.releases,
          members: options.members,
        }}
      />
      <div className="relative mt-3">
        {!cursor && page ? <LiveUpdates org={org} since={now} project={v.project} auto={rows.length === 0 && !filtered} /> : null}
        {queryError ? null : rows.length > 0 ? (
          <IssueStream
            org={org}
            rows={rows}
            statusView={page?.status ?? "all"}
            members={options.members}
            meId={viewer.userId}
            canDelete={can["issue.delete"]}
            readOnly={!can["issue.update"]}
            more={Boolean(page?.nextCursor)}
            actions={{ updateIssues, mergeIssues, deleteIssues, commentOnIssue }}
          />
        ) : projects.length === 0 || !anyIssues ? (
          <StreamEmpty org={org} projects={projects} />
        ) : filtered ? (
          <NoMatch base={base} />
        ) : (
          <AllClear base={base} />
        )}
      </div>
      {cursor || page?.nextCursor ? (
        <nav aria-label="Pagination" className="mt-3 flex items-center justify-end gap-2">
          {cursor ? (
            <Link className="btn btn-sm" href={withQuery(base, keep)}>
              ← Newest
            </Link>
          ) : null}
          {page?.nextCursor ? (
            <Link className="btn btn-sm" href={withQuery(base, { ...keep, cursor: page.nextCursor })}>
              Older →
            </Link>
          ) : null}
        </nav>
      ) : null}
      <p className="mt-3 hidden text-[12px] text-fg-dim sm:block">
        <kbd className="rounded border border-border px-1">j</kbd>/<kbd className="rounded border border-border px-1">k</kbd> move ·{" "}
        <kbd className="rounded border border-border px-1">x</kbd> select · <kbd className="rounded border border-border px-1">r</kbd>{" "}
        resolve · <kbd className="rounded border border-border px-1">i</kbd> ignore ·{" "}
        <kbd className="rounded border border-border px-1">a</kbd> assign · <kbd className="rounded border border-border px-1">?</kbd> all
        shortcuts
      </p>
    </main>
  );
}

function NoMatch({ base }: { base: string }) {
  return (
    <div className="rounded-md border border-border px-6 py-10 text-center text-fg-muted">
      <p className="font-medium text-fg">No issues match.</p>
      <p className="mt-1">
        Try a broader search — <code>is:</code>, <code>level:</code>, <code>environment:</code>, <code>release:</code>,{" "}
        <code>assigned:me</code>, <code>has:user</code>, any <code>tag:value</code>, <code>firstSeen:-24h</code> — or{" "}
        <Link href={base} className="underline underline-offset-2">
          clear the filters
        </Link>
        .
      </p>
    </div>
  );
}

/** Issues exist, none unresolved: say so, and where the others are. */
function AllClear({ base }: { base: string }) {
  return (
    <div className="rounded-md border border-border px-6 py-10 text-center text-fg-muted">
      <p className="font-medium text-fg">No unresolved issues. Nice.</p>
      <p className="mt-1">
        New errors show up here as they arrive.{" "}
        <Link href={`${base}?status=resolved`} className="underline underline-offset-2">
          Resolved
        </Link>{" "}
        and{" "}
        <Link href={`${base}?status=ignored`} className="underline underline-offset-2">
          ignored
        </Link>{" "}
        issues are a filter away.
      </p>
    </div>
  );
}
