import type { ReactNode } from "react";
import { TopBar } from "@/ui/top-bar";
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
  const [current, orgs] = await Promise.all([orNotFound(s.orgs.get(viewer, org)), s.orgs.listForViewer(viewer)]);
  return (
    <div className="flex min-h-screen flex-col">
      <TopBar orgs={orgs} current={current} email={viewer.email} />
      <div className="flex-1">{children}</div>
    </div>
  );
}
