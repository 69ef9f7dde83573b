import type { Metadata } from "next";
import Link from "next/link";
import { CopyButton } from "@/ui/kit/copy-button";
import { platformLabel } from "@/ui/onboarding/platforms";
import { orNotFound, requireViewer, services } from "../../_lib/server";

export const metadata: Metadata = { title: "Projects" };

/** The organization's projects with their DSN; admins and owners create more. */
export default async function ProjectsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const orgPath = `/${encodeURIComponent(org)}`;
  const viewer = await requireViewer(`${orgPath}/projects`);
  const s = await services();
  const [can, projects] = await Promise.all([orNotFound(s.orgs.can(viewer, org)), orNotFound(s.projects.list(viewer, org))]);
  const canManage = can["project.write"];
  return (
    <main className="mx-auto max-w-[1100px] px-4 py-4">
      <header className="mb-4 flex flex-wrap items-center gap-3">
        <h1 className="text-[18px] font-semibold">Projects</h1>
        <span className="tabular text-fg-dim">{projects.length}</span>
        {canManage ? (
          <Link href={`${orgPath}/projects/new`} className="btn btn-primary ml-auto">
            Create project
          </Link>
        ) : null}
      </header>
      {projects.length === 0 ? (
        <section className="rounded-md border border-border px-6 py-8" aria-labelledby="no-projects">
          <h2 id="no-projects" className="text-[15px] font-semibold">
            No projects yet
          </h2>
          <p className="mt-1 max-w-prose text-fg-muted">
            Errors arrive per project, each with its own DSN.{" "}
            {canManage ? (
              <Link href={`${orgPath}/onboarding`} className="underline underline-offset-2 hover:text-fg">
                Create the first one
              </Link>
            ) : (
              "Ask an admin or owner of the organization to create one"
            )}
            .
          </p>
        </section>
      ) : (
        <div className="overflow-x-auto rounded-md border border-border">
          <table className="w-full table-fixed border-collapse text-[13px]">
            <thead className="bg-subtle text-left text-[11px] tracking-wide text-fg-muted uppercase">
              <tr>
                <th className="w-[32%] px-4 py-2 font-medium sm:w-[24%]">Project</th>
                <th className="hidden w-[16%] px-3 py-2 font-medium sm:table-cell">Platform</th>
                <th className="px-3 py-2 font-medium">DSN</th>
                <th className="w-[150px] px-3 py-2 text-right font-medium">
                  <span className="sr-only">Links</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {projects.map((p) => {
                const settings = `${orgPath}/projects/${encodeURIComponent(p.slug)}/settings`;
                return (
                  <tr key={p.slug} className="border-t border-border align-middle" data-testid="project-row">
                    <td className="truncate px-4 py-2">
                      <Link href={settings} className="font-semibold hover:underline">
                        {p.name}
                      </Link>
                      <div className="font-mono text-[11.5px] text-fg-dim">{p.slug}</div>
                    </td>
                    <td className="hidden px-3 py-2 text-fg-muted sm:table-cell">{platformLabel(p.platform)}</td>
                    <td className="px-3 py-2">
                      {p.dsn ? (
                        <div className="flex min-w-0 items-center gap-2">
                          <code className="hidden min-w-0 truncate text-[12px] text-fg-muted sm:block" title={p.dsn}>
                            {p.dsn}
                          </code>
                          <CopyButton text={p.dsn} label={`Copy DSN of ${p.name}`} />
                        </div>
                      ) : (
                        <span className="text-fg-dim">No active key</span>
                      )}
                    </td>
                    <td className="px-3 py-2 text-right whitespace-nowrap">
                      <Link href={`${orgPath}/issues?project=${encodeURIComponent(p.slug)}`} className="btn btn-sm btn-ghost">
                        Issues
                      </Link>
                      <Link href={settings} className="btn btn-sm btn-ghost" aria-label={`Settings of ${p.name}`}>
                        Settings
                      </Link>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}
