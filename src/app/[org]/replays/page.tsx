import type { Metadata } from "next";
import Link from "next/link";
import { CodeBlock } from "@/ui/kit/code-block";
import { ReplayFilters, type ReplayFilterValues, searchOf } from "@/ui/replays/filters";
import { ReplayList } from "@/ui/replays/list";
import { orNotFound, param, queryErrorOf, requireViewer, services, withQuery } from "../../_lib/server";

export const metadata: Metadata = { title: "Replays" };

type SearchParams = Record<string, string | string[] | undefined>;

const SETUP = `Sentry.init({
  dsn: "…",
  integrations: [Sentry.replayIntegration()],
  replaysSessionSampleRate: 0.1, // a tenth of all sessions
  replaysOnErrorSampleRate: 1.0, // every session that hits an error
});`;

const PAGE = 50;

/** Session replays across the organization's projects (the ones the viewer sees), newest first. */
export default async function ReplaysPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { org } = await params;
  const sp = await searchParams;
  const text = (k: string, max = 200) => param(sp[k])?.slice(0, max) ?? "";
  const values: ReplayFilterValues = {
    query: text("query", 1000),
    project: text("project", 100),
    user: text("user"),
    url: text("url", 500),
    release: text("release"),
    environment: text("environment", 64),
    minDuration: text("minDuration", 6),
    errors: text("errors") === "1",
    dead: text("dead") === "1",
    rage: text("rage") === "1",
  };
  const sort = text("sort", 40) || "-started_at";
  const offset = Math.max(0, Number(text("offset", 9)) || 0);
  const base = `/${encodeURIComponent(org)}/replays`;
  const keep: Record<string, string> = {
    query: values.query,
    project: values.project,
    user: values.user,
    url: values.url,
    release: values.release,
    environment: values.environment,
    minDuration: values.minDuration,
    errors: values.errors ? "1" : "",
    dead: values.dead ? "1" : "",
    rage: values.rage ? "1" : "",
    sort: sort === "-started_at" ? "" : sort,
  };
  const viewer = await requireViewer(withQuery(base, { ...keep, offset: offset ? String(offset) : "" }));
  const s = await services();
  const projects = await orNotFound(s.projects.list(viewer, org));
  let page: Awaited<ReturnType<typeof s.replays.list>> = { rows: [], next: null };
  let queryError: string | null = null;
  try {
    page = await s.replays.list(viewer, org, {
      query: searchOf(values),
      sort,
      projects: values.project ? [values.project] : [],
      offset,
      limit: PAGE,
    });
  } catch (err) {
    const q = queryErrorOf(err);
    if (!q) return orNotFound(Promise.reject(err));
    queryError = q.message;
  }
  const filtered = Object.values(keep).some(Boolean);
  const now = Date.now();
  const sorts: Array<[string, string]> = [
    ["-started_at", "Newest"],
    ["-count_errors", "Most errors"],
    ["-count_rage_clicks", "Most rage clicks"],
    ["-count_dead_clicks", "Most dead clicks"],
    ["-duration", "Longest"],
  ];
  return (
    <main className="mx-auto max-w-[1200px] px-3 py-4 sm:px-4">
      <header className="mb-3 flex flex-wrap items-baseline gap-3">
        <h1 className="text-[18px] font-semibold">Replays</h1>
        <nav aria-label="Sort" className="ml-auto flex flex-wrap gap-1 text-[12.5px]">
          {sorts.map(([value, label]) => (
            <Link
              key={value}
              href={withQuery(base, { ...keep, sort: value === "-started_at" ? "" : value })}
              aria-current={sort === value ? "page" : undefined}
              className={`btn btn-sm ${sort === value ? "btn-primary" : "btn-ghost"}`}
            >
              {label}
            </Link>
          ))}
        </nav>
      </header>
      <ReplayFilters action={base} values={values} projects={projects} error={queryError} />
      {page.rows.length > 0 ? (
        <ReplayList org={org} rows={page.rows} now={now} />
      ) : queryError ? null : filtered || offset ? (
        <p className="rounded-md border border-border px-4 py-6 text-fg-muted">No replay matches these filters.</p>
      ) : (
        <section className="rounded-md border border-border px-6 py-6" aria-labelledby="no-replays">
          <h2 id="no-replays" className="text-[15px] font-semibold">
            No replays yet
          </h2>
          <p className="mt-1 max-w-prose text-fg-muted">
            Turn on the SDK&apos;s Replay integration and Errata keeps what your users saw before an error: the recording, masked as the SDK
            masks it (all text and inputs by default), with their clicks, console and network calls, linked to the error.
          </p>
          <CodeBlock className="mt-4 max-w-2xl" code={SETUP} copyLabel="Copy replay setup" />
        </section>
      )}
      <nav aria-label="Pages" className="mt-3 flex justify-end gap-2">
        {offset > 0 ? (
          <Link href={withQuery(base, { ...keep, offset: offset > PAGE ? String(offset - PAGE) : "" })} className="btn btn-sm">
            ← Newer
          </Link>
        ) : null}
        {page.next !== null ? (
          <Link href={withQuery(base, { ...keep, offset: String(page.next) })} className="btn btn-sm">
            Older →
          </Link>
        ) : null}
      </nav>
    </main>
  );
}
