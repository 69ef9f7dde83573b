import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { countOf } from "@/ui/kit/format";
import { TimeAgo } from "@/ui/kit/time-ago";
import { ReleaseCommits, ReleaseDeploys } from "@/ui/releases/deploys-commits";
import { CrashFree, SessionDaysChart } from "@/ui/releases/health";
import { ReleaseIssueList } from "@/ui/releases/issue-list";
import { orNotFound, requireViewer, services } from "../../../_lib/server";

type Params = Promise<{ org: string; version: string }>;

/** Next may hand the segment over still percent-encoded; a stray `%` must not throw. */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { version } = await params;
  return { title: `Release ${safeDecode(version).slice(0, 60)}` };
}

const fmt = (n: number) => n.toLocaleString("en-US");

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** One release: health figures, the issues it brought (new) or brought back (regressions), its artifacts. */
export default async function ReleasePage({ params }: { params: Params }) {
  const { org, version: raw } = await params;
  const version = safeDecode(raw).slice(0, 250);
  const orgPath = `/${encodeURIComponent(org)}`;
  const viewer = await requireViewer(`${orgPath}/releases/${encodeURIComponent(version)}`);
  const s = await services();
  const r = await orNotFound(s.releases.get(viewer, org, version));
  const extras = await orNotFound(s.releaseApi.extras(viewer, org, version));
  const now = Date.now();
  const sessions = r.sessions;
  return (
    <main className="mx-auto max-w-[1200px] px-4 py-4">
      <nav aria-label="Breadcrumb" className="mb-3 text-[12.5px] text-fg-muted">
        <Link href={`${orgPath}/releases`} className="hover:text-fg">
          ← Releases
        </Link>
      </nav>
      <header>
        <h1 className="font-mono text-[18px] font-semibold break-all">{r.version}</h1>
        <p className="mt-1 text-[12.5px] text-fg-muted">
          First known <TimeAgo ms={r.createdAt} now={now} />
          {r.projects.length > 0 ? (
            <>
              {" · seen in "}
              {r.projects.map((p, i) => (
                <span key={p.slug}>
                  {i > 0 ? ", " : ""}
                  <span className="font-medium text-fg">{p.slug}</span> (first event <TimeAgo ms={p.firstSeen} now={now} />)
                </span>
              ))}
            </>
          ) : (
            " · no event names it yet"
          )}
          {extras.meta?.dateReleased ? (
            <>
              {" · released "}
              <TimeAgo ms={extras.meta.dateReleased} now={now} />
            </>
          ) : null}
          {extras.meta?.status === "archived" ? " · archived" : null}
        </p>
      </header>

      <dl className="mt-4 grid grid-cols-2 rounded-md border border-border sm:grid-cols-3 lg:grid-cols-5" data-testid="release-figures">
        <Figure label="New issues">
          <span className="tabular text-[15px] font-semibold">{fmt(r.newIssues)}</span>
        </Figure>
        <Figure label="Regressions">
          <span className="tabular text-[15px] font-semibold">{fmt(r.regressions.length)}</span>
        </Figure>
        <Figure label="Crash-free sessions">
          {r.crashFreeSessions === null ? <NotAvailable why="no sessions" /> : <CrashFree rate={r.crashFreeSessions} />}
        </Figure>
        <Figure label="Crash-free users">
          {r.crashFreeUsers === null ? (
            <NotAvailable why={sessions ? "no user ids" : "no sessions"} />
          ) : (
            <CrashFree rate={r.crashFreeUsers} />
          )}
        </Figure>
        <Figure label="Users">
          {r.users === null ? (
            <NotAvailable why={sessions ? "no user ids" : "no sessions"} />
          ) : (
            <span className="tabular text-[15px] font-semibold">{fmt(r.users)}</span>
          )}
        </Figure>
      </dl>

      <section className="mt-6" aria-labelledby="health-title">
        <h2 id="health-title" className="section-title">
          Release health
        </h2>
        {sessions ? (
          <div className="mt-2">
            <p className="mb-2 text-[12.5px] text-fg-muted">
              {countOf(sessions.total, "session")}: {fmt(sessions.crashed)} crashed, {fmt(sessions.abnormal)} abnormal,{" "}
              {fmt(sessions.errored + sessions.unhandled)} with handled errors. Crash-free sessions are those that did not crash; crash-free
              users are those none of whose sessions crashed (users are the SDK's <code>did</code>, sent when a user is set).
            </p>
            <SessionDaysChart days={r.sessionDays} now={now} />
          </div>
        ) : (
          <p className="mt-2 max-w-prose text-fg-muted">
            No session data for this release. The browser, Node and Next.js SDKs send sessions by default when <code>release</code> is set;
            sessions give the release its crash-free rate.
          </p>
        )}
      </section>

      <section className="mt-6" aria-labelledby="new-issues">
        <h2 id="new-issues" className="section-title">
          New issues <span className="tabular ml-1 font-normal text-fg-dim">{r.newIssues}</span>
        </h2>
        <div className="mt-2">
          <ReleaseIssueList
            org={org}
            items={r.newIssueList.map((issue) => ({ issue, at: issue.firstSeen }))}
            now={now}
            whenLabel="first seen"
            empty="No issue first appeared in this release."
            label="New issues"
          />
          {r.newIssues > r.newIssueList.length ? (
            <p className="mt-1 text-[12px] text-fg-dim">Showing the newest {r.newIssueList.length}.</p>
          ) : null}
        </div>
      </section>

      <section className="mt-6" aria-labelledby="regressions">
        <h2 id="regressions" className="section-title">
          Regressions <span className="tabular ml-1 font-normal text-fg-dim">{r.regressions.length}</span>
        </h2>
        <p className="mt-1 text-[12.5px] text-fg-muted">Resolved issues that came back with an event from this release.</p>
        <div className="mt-2">
          <ReleaseIssueList
            org={org}
            items={r.regressions}
            now={now}
            whenLabel="regressed"
            empty="No regressions in this release."
            label="Regressions"
          />
        </div>
      </section>

      <section className="mt-6" aria-labelledby="deploys">
        <h2 id="deploys" className="section-title">
          Deploys <span className="tabular ml-1 font-normal text-fg-dim">{extras.deploys.length}</span>
        </h2>
        <ReleaseDeploys deploys={extras.deploys} now={now} />
      </section>

      <section className="mt-6" aria-labelledby="commits">
        <h2 id="commits" className="section-title">
          Commits <span className="tabular ml-1 font-normal text-fg-dim">{extras.commits.length}</span>
        </h2>
        <ReleaseCommits commits={extras.commits} now={now} />
      </section>

      <section className="mt-6" aria-labelledby="artifacts">
        <h2 id="artifacts" className="section-title">
          Artifacts <span className="tabular ml-1 font-normal text-fg-dim">{r.artifacts.files}</span>
        </h2>
        {r.artifactList.length === 0 ? (
          <p className="mt-2 max-w-prose text-fg-muted">
            No source maps uploaded for this release. Bundles uploaded with debug ids (<code>sentry-cli sourcemaps upload</code>) work
            without naming a release and are not listed here.
          </p>
        ) : (
          <div className="mt-2 overflow-x-auto rounded-md border border-border">
            <table className="w-full min-w-[560px] border-collapse text-[12.5px]">
              <thead className="bg-subtle text-left text-[11px] tracking-wide text-fg-muted uppercase">
                <tr>
                  <th className="px-3 py-1.5 font-medium">Artifact</th>
                  <th className="px-3 py-1.5 font-medium">Dist</th>
                  <th className="px-3 py-1.5 text-right font-medium">Files</th>
                  <th className="px-3 py-1.5 text-right font-medium">Size</th>
                  <th className="px-3 py-1.5 font-medium">Projects</th>
                  <th className="px-3 py-1.5 text-right font-medium">Uploaded</th>
                </tr>
              </thead>
              <tbody>
                {r.artifactList.map((a, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: legacy files may repeat a URL across dists.
                  <tr key={i} className="border-t border-border">
                    <td className="max-w-[360px] truncate px-3 py-1.5 font-mono text-[12px]" title={a.name}>
                      {a.name}
                    </td>
                    <td className="px-3 py-1.5 font-mono text-[12px] text-fg-muted">{a.dist || "–"}</td>
                    <td className="tabular px-3 py-1.5 text-right">{fmt(a.files)}</td>
                    <td className="tabular px-3 py-1.5 text-right">{bytes(a.size)}</td>
                    <td className="px-3 py-1.5 text-fg-muted">
                      {a.kind === "bundle" ? (a.projects.length ? a.projects.join(", ") : "all") : "–"}
                    </td>
                    <td className="px-3 py-1.5 text-right text-fg-muted">
                      <TimeAgo ms={a.createdAt} now={now} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </main>
  );
}

function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="border-border px-4 py-3 [&:not(:first-child)]:border-l max-sm:[&:nth-child(odd)]:border-l-0 max-sm:[&:nth-child(n+3)]:border-t max-sm:last:col-span-2">
      <dt className="text-[11.5px] text-fg-muted">{label}</dt>
      <dd className="mt-0.5">{children}</dd>
    </div>
  );
}

function NotAvailable({ why }: { why: string }) {
  return <span className="text-[12.5px] text-fg-dim">– ({why})</span>;
}
