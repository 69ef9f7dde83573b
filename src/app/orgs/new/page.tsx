import type { Metadata } from "next";
import Link from "next/link";
import { SettingsForm } from "@/ui/kit/settings-form";
import { Field, SettingsSection } from "@/ui/kit/settings-section";
import { requireViewer, services } from "../../_lib/server";
import { createOrgAction } from "./actions";

export const metadata: Metadata = { title: "New organization" };

/** An owner creates another organization (separate members, teams, projects and tokens). */
export default async function NewOrgPage() {
  const viewer = await requireViewer("/orgs/new");
  const orgs = await (await services()).orgs.listForViewer(viewer);
  const owner = orgs.some((o) => o.role === "owner");
  const back = orgs[0] ? `/${orgs[0].slug}/issues` : "/";
  return (
    <main className="mx-auto max-w-[760px] px-4 py-4">
      <nav aria-label="Breadcrumb" className="mb-3 text-[12.5px] text-fg-muted">
        <Link href={back} className="hover:text-fg">
          ← Back
        </Link>
      </nav>
      <h1 className="mb-4 text-[18px] font-semibold">New organization</h1>
      <SettingsSection
        id="new-org"
        title="Organization"
        description="A separate tenant: its own members, teams, projects and tokens; nothing is shared with your other organizations. You become its owner."
      >
        {owner ? (
          <SettingsForm
            action={createOrgAction}
            hidden={{}}
            canManage
            submitLabel="Create organization"
            fieldLabels={{ name: "Name", slug: "Slug" }}
          >
            <Field id="org-name" label="Name">
              <input id="org-name" name="name" required maxLength={100} className="input w-[280px] max-w-full" />
            </Field>
            <Field id="org-slug" label="Slug" hint="In URLs: lowercase letters, digits and dashes.">
              <input id="org-slug" name="slug" required maxLength={50} pattern="[a-z0-9-]+" className="input w-[280px] max-w-full" />
            </Field>
          </SettingsForm>
        ) : (
          <p className="text-fg-muted">Only owners of an organization can create another.</p>
        )}
      </SettingsSection>
    </main>
  );
}
