import type { Metadata } from "next";
import { SettingsSection } from "@/ui/kit/settings-section";
import { NewTokenForm, RevokeTokenButton } from "@/ui/members/token-forms";
import { TokenList } from "@/ui/members/token-list";
import { orNotFound, requireViewer, services } from "../../../_lib/server";
import { createOrgTokenAction, revokeOrgTokenAction } from "./actions";

export const metadata: Metadata = { title: "Organization tokens" };

/** Organization tokens for CI: create (shown once), list, revoke. */
export default async function OrgTokensPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/settings/tokens`);
  const tokens = await orNotFound((await services()).tokens.listOrg(viewer, org));
  return (
    <div>
      <SettingsSection
        id="org-tokens"
        title="Organization tokens"
        description="For CI: set SENTRY_AUTH_TOKEN to one and sentry-cli or the @sentry bundler plugins find this server and organization from the token itself. Like Sentry's, an organization token carries org:ci: it creates and finalizes releases, records deploys and uploads source maps and release files, in this organization only. It never reads issues, changes members, keys, projects or settings, or deletes anything; it never does more than its creator's current role allows, and it stops working when its creator leaves."
      >
        <TokenList
          tokens={tokens}
          revoke={(t) => <RevokeTokenButton action={revokeOrgTokenAction} hidden={{ org, tokenId: String(t.id) }} name={t.name} />}
        />
      </SettingsSection>
      <SettingsSection id="new-org-token" title="New organization token">
        <NewTokenForm action={createOrgTokenAction} hidden={{ org }} scopes={[]} defaults={[]} idPrefix="org-token" />
      </SettingsSection>
    </div>
  );
}
