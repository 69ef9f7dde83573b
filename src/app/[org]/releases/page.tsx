import type { Metadata } from "next";
import Link from "next/link";
import { CodeBlock } from "@/ui/kit/code-block";
import { countOf } from "@/ui/kit/format";
import { ProjectFilterForm } from "@/ui/kit/project-filter-form";
import { TimeAgo } from "@/ui/kit/time-ago";
import { CrashFree } from "@/ui/releases/health";
import { orNotFound, param, requireViewer, services, withQuery } from "../../_lib/server";

export const metadata: Metadata = { title: "Releases" };

type SearchParams = Record<string, string | string[] | undefined>;

/** The organization's releases, newest first: where each was seen, new issues, crash-free sessions, artifacts. */
export default async function ReleasesPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { org } = await params;
  const sp = await searchParams;
  const project = param(sp.project)?.slice(0, 100) ?? "";
  const cursor = param(sp.cursor)?.slice(0, 200) ?? "";
  const orgPath = `/${encodeURIComponent(org)}`;
  const base = `${orgPath}/releases`;
  const viewer = await requireViewer(withQuery(base, { project, cursor }));
  const s = await services();
  const [projects, page] = await Promise.all([
    orNotFound(s.projects.list(viewer, org)),
    orNotFound(s.releases.list(viewer, org, { project: project || undefined, cursor: cursor || null, limit: 50 })),
  ]);
  const now = Date.now();
  return (
    <main className="mx-auto max-w-[1200px] px-4 py-4">
      <header className="mb-3 flex flex-wrap items-center gap-3">
        <h1 className="text-[18px] font-semibold">Releases</h1>
        <ProjectFilterForm id="release-project" action={base} projects={projects} selected={project} />
      </header>
      {page.items.length === 0 ? (
        cursor ? (
          <p className="rounded-md border border-border px-4 py-6 text-fg-muted">No older releases.</p>
        ) : (
          <section className="rounded-md border border-border px-6 py-6" aria-labelledby="no-releases">
            <h2 id="no-releases" className="text-[15px] font-semibold">
              No releases yet
            </h2>
            <p className="mt-1 max-w-prose text-fg-muted">
              A release appears when an event names one. Set <code>release</code> when initialising the SDK — then issues record the release
              they first appeared in, &ldquo;resolved in release&rdquo; works, and sessions give each release a crash-free rate.
            </p>
            <CodeBlock
              className="mt-4 max-w-2xl"
              code={`Sentry.init({\n  dsn: "…",\n  release: "my-app@1.4.0",\n});`}
              copyLabel="Copy snippet"
            />
          </section>
        )
      ) : (
        <div className="overflow-x-auto rounded-md border border-border">
          <table className="w-full border-collapse text-[13px] md:min-w-[720px]">
            <thead className="bg-subtle text-left text-[11px] tracking-wide text-fg-muted uppercase">
              <tr>
                <th className="px-4 py-2 font-medium">Version</th>
                <th className="hidden px-3 py-2 font-medium md:table-cell">Projects</th>
                <th className="px-3 py-2 text-right font-medium">New issues</th>
                <th className="px-3 py-2 font-medium">Crash-free sessions</th>
                <th className="hidden px-3 py-2 text-right font-medium sm:table-cell">Users</th>
                <th className="hidden px-3 py-2 text-right font-medium md:table-cell">Artifacts</th>
                <th className="hidden px-3 py-2 text-right font-medium sm:table-cell">Created</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((r) => (
                <tr key={r.version} className="border-t border-border" data-testid="release-row">
                  <td className="max-w-[160px] px-4 py-2 sm:max-w-[320px]">
                    <Link
                      href={`${base}/${encodeURIComponent(r.version)}`}
                      className="block truncate font-mono text-[12.5px] font-semibold hover:underline"
                      title={r.version}
                    >
                      {r.version}
                    </Link>
                  </td>
                  <td className="hidden px-3 py-2 text-fg-muted md:table-cell">
                    {r.projects.length === 0 ? <span className="text-fg-dim">–</span> : r.projects.map((p) => p.slug).join(", ")}
                  </td>
                  <td className="tabular px-3 py-2 text-right">
                    {r.newIssues > 0 ? (
                      <Link href={`${base}/${encodeURIComponent(r.version)}#new-issues`} className="hover:underline">
                        {r.newIssues}
                      </Link>
                    ) : (
                      <span className="text-fg-dim">0</span>
                    )}
                  </td>
                  <td className="px-3 py-2">
                    <CrashFree rate={r.crashFreeSessions} compact />
                  </td>
                  <td className="tabular hidden px-3 py-2 text-right sm:table-cell">
                    {r.users === null ? <span className="text-fg-dim">–</span> : r.users.toLocaleString("en-US")}
                  </td>
                  <td className="tabular hidden px-3 py-2 text-right md:table-cell">
                    {r.artifacts.files > 0 ? countOf(r.artifacts.files, "file") : <span className="text-fg-dim">–</span>}
                  </td>
                  <td className="hidden px-3 py-2 text-right text-fg-muted sm:table-cell">
                    <TimeAgo ms={r.createdAt} now={now} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Pages" className="mt-3 flex justify-end gap-2">
        {cursor ? (
          <Link href={withQuery(base, { project })} className="btn btn-sm">
            Newest
          </Link>
        ) : null}
        {page.nextCursor ? (
          <Link href={withQuery(base, { project, cursor: page.nextCursor })} className="btn btn-sm">
            Older releases →
          </Link>
        ) : null}
      </nav>
      {page.items.some((r) => r.sessions === null) ? (
        <p className="mt-2 text-[12px] text-fg-dim">
          – : no session data for that release (release health needs the SDK&apos;s session tracking).
        </p>
      ) : null}
    </main>
  );
}
