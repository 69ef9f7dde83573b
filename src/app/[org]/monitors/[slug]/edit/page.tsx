import type { Metadata } from "next";
import Link from "next/link";
import { MonitorForm } from "@/ui/monitors/form";
import { orNotFound, requireViewer, services } from "../../../../_lib/server";
import { updateCronMonitorAction } from "../../actions";

export const metadata: Metadata = { title: "Edit monitor" };

/** Edit a cron monitor (owners and admins; the service refuses the others). */
export default async function EditMonitorPage({ params }: { params: Promise<{ org: string; slug: string }> }) {
  const { org, slug } = await params;
  const path = `/${encodeURIComponent(org)}/monitors/${encodeURIComponent(slug)}`;
  const viewer = await requireViewer(`${path}/edit`);
  const s = await services();
  const [m, can] = await Promise.all([orNotFound(s.monitors.get(viewer, org, slug)), orNotFound(s.orgs.can(viewer, org))]);
  const canManage = can["monitor.write"];
  return (
    <main className="mx-auto max-w-[1200px] px-4 py-4">
      <nav className="mb-2 text-[12px] text-fg-muted">
        <Link href={path} className="hover:underline">
          ← {m.name}
        </Link>
      </nav>
      <h1 className="mb-3 text-[18px] font-semibold">Edit monitor</h1>
      {canManage ? (
        <MonitorForm
          action={updateCronMonitorAction}
          org={org}
          monitor={{ slug: m.slug, name: m.name, config: m.config }}
          testId="monitor-edit"
        />
      ) : (
        <p className="text-fg-muted">Only owners and admins can edit a monitor.</p>
      )}
    </main>
  );
}
