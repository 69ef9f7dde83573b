import type { ReactNode } from "react";
import { OrgSettingsNav } from "@/ui/orgs/settings-nav";

/** The organization settings shell: a title and the sections (each page checks the role itself). */
export default async function OrgSettingsLayout({ children, params }: { children: ReactNode; params: Promise<{ org: string }> }) {
  const { org } = await params;
  const base = `/${encodeURIComponent(org)}/settings`;
  return (
    <main className="mx-auto max-w-[1100px] px-4 py-4">
      <header className="mb-4">
        <h1 className="text-[18px] font-semibold">Organization settings</h1>
      </header>
      <div className="flex flex-col gap-5 md:flex-row md:gap-8">
        <aside className="md:w-[190px] md:shrink-0">
          <OrgSettingsNav base={base} />
        </aside>
        <div className="min-w-0 flex-1">{children}</div>
      </div>
    </main>
  );
}
