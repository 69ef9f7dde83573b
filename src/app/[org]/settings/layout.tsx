import type { ReactNode } from "react";
import { OrgSettingsNav } from "@/ui/orgs/settings-nav";
import { INSTALLATION_SECTIONS, ORG_SETTINGS_SECTIONS } from "@/ui/orgs/settings-sections";
import { currentViewer, orNotFound, services } from "../../_lib/server";

/**
 * The organization settings shell: a title and the sections this viewer's role may use (each page
 * checks the role itself). Without a session it renders the page bare (each page redirects to /login).
 */
export default async function OrgSettingsLayout({ children, params }: { children: ReactNode; params: Promise<{ org: string }> }) {
  const { org } = await params;
  const base = `/${encodeURIComponent(org)}/settings`;
  const viewer = await currentViewer();
  if (!viewer) return <>{children}</>;
  const s = await services();
  const can = await orNotFound(s.orgs.can(viewer, org));
  const visible: string[] = ORG_SETTINGS_SECTIONS.filter((section) => can[section.needs]).map((section) => section.path);
  // The installation's own pages (backups), for its operators only.
  if (await s.backups.isOperator(viewer)) visible.push(...INSTALLATION_SECTIONS.map((section) => section.path));
  return (
    <main className="mx-auto max-w-[1100px] px-4 py-4">
      <header className="mb-4">
        <h1 className="text-[18px] font-semibold">Organization settings</h1>
      </header>
      <div className="flex flex-col gap-5 md:flex-row md:gap-8">
        {visible.length > 0 ? (
          <aside className="md:w-[190px] md:shrink-0">
            <OrgSettingsNav base={base} visible={visible} />
          </aside>
        ) : null}
        <div className="min-w-0 flex-1">{children}</div>
      </div>
    </main>
  );
}
