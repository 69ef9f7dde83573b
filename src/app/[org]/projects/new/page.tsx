import type { Metadata } from "next";
import Link from "next/link";
import { ProjectCreateForm } from "@/ui/onboarding/project-create-form";
import { orNotFound, requireViewer, services } from "../../../_lib/server";
import { createProjectAction } from "../actions";

export const metadata: Metadata = { title: "Create project" };

export default async function NewProjectPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const orgPath = `/${encodeURIComponent(org)}`;
  const viewer = await requireViewer(`${orgPath}/projects/new`);
  const canManage = (await orNotFound((await services()).orgs.can(viewer, org)))["project.write"];
  const teams = canManage ? (await (await services()).teams.page(viewer, org)).teams : [];
  return (
    <main className="mx-auto max-w-[760px] px-4 py-4">
      <nav aria-label="Breadcrumb" className="mb-3 text-[12.5px] text-fg-muted">
        <Link href={`${orgPath}/projects`} className="hover:text-fg">
          ← Projects
        </Link>
      </nav>
      <h1 className="text-[18px] font-semibold">Create project</h1>
      <p className="mt-1 mb-5 max-w-prose text-fg-muted">It gets a DSN right away; the next page shows how to set up the SDK with it.</p>
      {canManage ? (
        <ProjectCreateForm action={createProjectAction} org={org} then="settings" teams={teams} />
      ) : (
        <p className="rounded-md border border-border bg-subtle px-3 py-2 text-fg-muted">Only admins and owners can create projects.</p>
      )}
    </main>
  );
}
