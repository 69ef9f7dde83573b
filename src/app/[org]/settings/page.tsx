import { redirect } from "next/navigation";

export default async function OrgSettingsIndex({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  redirect(`/${encodeURIComponent(org)}/settings/members`);
}
