import type { ReactNode } from "react";
import { TopBar } from "@/ui/shell/top-bar";
import { currentViewer, orNotFound, services } from "../_lib/server";

/**
 * The signed-in shell. Without a session it renders the page bare: every page under [org]
 * redirects to /login?next=<its own path> itself (the layout does not know the full path).
 */
export default async function OrgLayout({ children, params }: { children: ReactNode; params: Promise<{ org: string }> }) {
  const { org } = await params;
  const viewer = await currentViewer();
  if (!viewer) return <>{children}</>;
  const s = await services();
  const [current, orgs, can] = await Promise.all([
    orNotFound(s.orgs.get(viewer, org)),
    s.orgs.listForViewer(viewer),
    orNotFound(s.orgs.can(viewer, org)),
  ]);
  return (
    <div className="flex min-h-screen flex-col">
      {/* The first stop for a keyboard: past the top bar's dozen controls to the page itself. */}
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      {/* Settings open on Members, which only those who may invite can see. */}
      <TopBar orgs={orgs} current={current} email={viewer.email} settings={can["member.invite"]} />
      <div id="main" tabIndex={-1} className="flex-1 scroll-mt-12 outline-none">
        {children}
      </div>
    </div>
  );
}
