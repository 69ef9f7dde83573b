import Link from "next/link";
import type { ReactNode } from "react";
import { platformLabel } from "@/ui/onboarding/platforms";
import { SettingsNav } from "@/ui/orgs/project-settings-nav";
import { currentViewer, orNotFound, services } from "../../../../_lib/server";

/**
 * The project settings shell: breadcrumb, the project's name, and the sections. Without a session
 * it renders the page bare (each page redirects to /login with its own path).
 */
export default async function ProjectSettingsLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ org: string; slug: string }>;
}) {
  const { org, slug } = await params;
  const viewer = await currentViewer();
  if (!viewer) return <>{children}</>;
  const project = await orNotFound((await services()).projects.get(viewer, org, slug));
  const orgPath = `/${encodeURIComponent(org)}`;
  const base = `${orgPath}/projects/${encodeURIComponent(project.slug)}/settings`;
  return (
    <main className="mx-auto max-w-[1100px] px-4 py-4">
      <nav aria-label="Breadcrumb" className="mb-3 text-[12.5px] text-fg-muted">
        <Link href={`${orgPath}/projects`} className="hover:text-fg">
          ← Projects
        </Link>
      </nav>
      <header className="mb-4 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="text-[18px] font-semibold">{project.name}</h1>
        <span className="font-mono text-[12px] text-fg-dim">{project.slug}</span>
        <span className="badge">{platformLabel(project.platform)}</span>
        <Link
          href={`${orgPath}/issues?project=${encodeURIComponent(project.slug)}`}
          className="ml-auto text-[12.5px] text-fg-muted hover:text-fg"
        >
          Issues of this project →
        </Link>
      </header>
      <div className="flex flex-col gap-5 md:flex-row md:gap-8">
        <aside className="md:w-[190px] md:shrink-0">
          <SettingsNav base={base} />
        </aside>
        <div className="min-w-0 flex-1">{children}</div>
      </div>
    </main>
  );
}
