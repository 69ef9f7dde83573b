import type { Metadata } from "next";
import { SsoRemoveForm, SsoSettingsForm } from "@/ui/auth/sso-settings";
import { CopyButton } from "@/ui/kit/copy-button";
import { DangerZone, SettingsSection } from "@/ui/kit/settings-section";
import { orNotFound, requireViewer, services } from "../../../_lib/server";
import { removeSsoAction, saveSsoAction } from "./actions";

export const metadata: Metadata = { title: "Single sign-on" };

/** OpenID Connect for the organization: owners edit, admins read (the service decides). */
export default async function SsoSettingsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/settings/sso`);
  const sso = await orNotFound((await services()).sso.settings(viewer, org));
  return (
    <div>
      <SettingsSection
        id="sso"
        title="Single sign-on (OpenID Connect)"
        description={
          <>
            People sign in through your identity provider (Google, Keycloak, Authentik, Microsoft Entra, or GitHub behind an OIDC proxy such
            as Dex) and join this organization on their first sign-in. Register an application (a confidential web client) at the provider
            with this redirect URI; docs/sso.md has the settings for each provider.
          </>
        }
      >
        <div className="mb-4 flex flex-wrap items-center gap-2 text-[13px]">
          <span className="text-fg-muted">Redirect URI</span>
          <code className="rounded bg-muted px-1.5 py-0.5 font-mono text-[12px]" data-testid="sso-redirect-uri">
            {sso.redirectUri}
          </code>
          <CopyButton text={sso.redirectUri} />
        </div>
        {sso.configured ? (
          <p className="mb-3 text-[13px]" data-testid="sso-state">
            <span className="font-semibold">Active</span> —{" "}
            {sso.required ? "required for everyone but owners" : "optional; passwords still work"}.
          </p>
        ) : (
          <p className="mb-3 text-[13px] text-fg-muted" data-testid="sso-state">
            Not set up.
          </p>
        )}
        <SsoSettingsForm action={saveSsoAction} org={org} settings={sso} />
      </SettingsSection>
      {sso.configured && sso.canEdit ? (
        <DangerZone
          title="Remove single sign-on"
          description="People provisioned by the provider stay members; those without a password can no longer sign in."
        >
          <SsoRemoveForm action={removeSsoAction} org={org} />
        </DangerZone>
      ) : null}
    </div>
  );
}
