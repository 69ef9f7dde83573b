import { redirect } from "next/navigation";
import { NoOrgSettings } from "@/ui/orgs/no-org-settings";
import { ORG_SETTINGS_SECTIONS } from "@/ui/orgs/settings-sections";
import { orNotFound, requireViewer, services } from "../../_lib/server";

/** The first section this viewer may use; a member or viewer is told whose settings these are. */
export default async function OrgSettingsIndex({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const path = `/${encodeURIComponent(org)}/settings`;
  // Sign-in and membership first: the redirect itself must not tell anyone the organization exists.
  const viewer = await requireViewer(path);
  const s = await services();
  const summary = await orNotFound(s.orgs.get(viewer, org));
  const can = await s.orgs.can(viewer, org);
  const first = ORG_SETTINGS_SECTIONS.find((section) => can[section.needs]);
  if (first) redirect(`${path}${first.path}`);
  return <NoOrgSettings role={summary.role} />;
}
