import type { Metadata } from "next";
import Link from "next/link";
import { SettingsSection } from "@/ui/kit/settings-section";
import { AuditLogTable } from "@/ui/orgs/audit-log";
import { orNotFound, requireViewer, services } from "../../../_lib/server";

export const metadata: Metadata = { title: "Audit log" };

/** The organization's audit log, newest first (owners). */
export default async function AuditLogPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<{ before?: string }>;
}) {
  const { org } = await params;
  const { before } = await searchParams;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/settings/audit-log`);
  const page = await orNotFound((await services()).audit.page(viewer, org, { before }));
  const base = `/${encodeURIComponent(org)}/settings/audit-log`;
  return (
    <SettingsSection
      id="audit"
      title="Audit log"
      description="Sign-ins through the identity provider, SCIM provisioning and deprovisioning, changes to single sign-on, SCIM and group mappings, role changes and removals. Also at GET /api/0/organizations/{org}/audit-logs/."
    >
      <AuditLogTable entries={page.entries} now={Date.now()} />
      <div className="mt-3 flex gap-3 text-[13px]">
        {before ? (
          <Link href={base} className="underline">
            Newest
          </Link>
        ) : null}
        {page.next ? (
          <Link href={`${base}?before=${page.next}`} className="underline" data-testid="audit-older">
            Older
          </Link>
        ) : null}
      </div>
    </SettingsSection>
  );
}
