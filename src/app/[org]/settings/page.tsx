import { redirect } from "next/navigation";
import { orNotFound, requireViewer, services } from "../../_lib/server";

export default async function OrgSettingsIndex({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const path = `/${encodeURIComponent(org)}/settings`;
  // Sign-in and membership first: the redirect itself must not tell anyone the organization exists.
  const viewer = await requireViewer(path);
  await orNotFound((await services()).orgs.get(viewer, org));
  redirect(`${path}/members`);
}
