import type { Metadata } from "next";
import Link from "next/link";
import { GroupMappingForm, GroupMappingTable } from "@/ui/auth/group-mappings";
import { CopyRow, SamlServiceProvider, SamlTestResultView } from "@/ui/auth/saml-details";
import { SamlRemoveForm, SamlSettingsForm, SamlTestForm } from "@/ui/auth/saml-settings";
import { ScimTokenForms } from "@/ui/auth/scim-settings";
import { SsoRemoveForm, SsoSettingsForm } from "@/ui/auth/sso-settings";
import { DangerZone, SettingsSection } from "@/ui/kit/settings-section";
import { TimeAgo } from "@/ui/kit/time-ago";
import { orNotFound, requireViewer, services } from "../../../_lib/server";
import {
  removeGroupMappingAction,
  removeSamlAction,
  removeSsoAction,
  revokeScimTokenAction,
  rotateScimTokenAction,
  saveGroupMappingAction,
  saveSamlAction,
  saveSsoAction,
  testSamlAction,
} from "./actions";

export const metadata: Metadata = { title: "Single sign-on" };

type Search = Promise<{ protocol?: string; saml_test?: string }>;

/** SAML 2.0 or OpenID Connect (one at a time), group → team mappings and SCIM: owners edit, admins read. */
export default async function SsoSettingsPage({ params, searchParams }: { params: Promise<{ org: string }>; searchParams: Search }) {
  const { org } = await params;
  const sp = await searchParams;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/settings/sso`);
  const s = await services();
  const [oidc, saml, scim, groups] = await orNotFound(
    Promise.all([
      s.sso.settings(viewer, org),
      s.saml.settings(viewer, org),
      s.scim.token.view(viewer, org),
      s.groupMappings.page(viewer, org),
    ]),
  );
  const test = sp.saml_test ? await s.saml.testResult(viewer, org, sp.saml_test).catch(() => null) : null;
  const protocol = sp.protocol === "oidc" || sp.protocol === "saml" ? sp.protocol : saml.configured ? "saml" : "oidc";
  const now = Date.now();
  const base = `/${encodeURIComponent(org)}/settings/sso`;
  const state = saml.configured ? `SAML 2.0 with ${saml.idp.entityId}` : oidc.configured ? `OpenID Connect with ${oidc.issuer}` : null;
  const required = saml.configured ? saml.required : oidc.required;
  return (
    <div>
      <SettingsSection
        id="sso"
        title="Single sign-on"
        description="People sign in through your identity provider and join this organization on their first sign-in. Choose SAML 2.0 or OpenID Connect: saving one replaces the other. docs/sso.md has the steps for Okta, Microsoft Entra ID, Google Workspace, OneLogin, JumpCloud and Keycloak."
      >
        <p className="mb-3 text-[13px]" data-testid="sso-state">
          {state ? (
            <>
              <span className="font-semibold">Active</span> — {state};{" "}
              {required ? "required for everyone but owners" : "optional; passwords still work"}.
            </>
          ) : (
            <span className="text-fg-muted">Not set up.</span>
          )}
        </p>
        <nav aria-label="Protocol" className="flex gap-1">
          {(["saml", "oidc"] as const).map((p) => (
            <Link
              key={p}
              href={`${base}?protocol=${p}`}
              aria-current={protocol === p ? "page" : undefined}
              className={`rounded-md border px-2.5 py-1 text-[13px] ${protocol === p ? "border-border-strong bg-muted font-semibold" : "border-border text-fg-muted hover:bg-hover"}`}
            >
              {p === "saml" ? "SAML 2.0" : "OpenID Connect"}
            </Link>
          ))}
        </nav>
      </SettingsSection>

      {protocol === "saml" ? (
        <SettingsSection
          id="saml"
          title="SAML 2.0"
          description="Create a SAML application at the provider with the ACS URL and entity id below (or give it the SP metadata URL), then enter the provider here. Signed responses or assertions are required; each assertion is accepted once."
        >
          <SamlServiceProvider settings={saml} now={now} />
          {oidc.configured ? (
            <p className="mt-3 text-[12.5px] text-fg-muted">Saving SAML replaces the OpenID Connect provider set up now.</p>
          ) : null}
          <div className="mt-4">
            <SamlSettingsForm action={saveSamlAction} org={org} settings={saml} />
          </div>
          {saml.configured && saml.canEdit ? (
            <div className="mt-4">
              <SamlTestForm action={testSamlAction} org={org} />
            </div>
          ) : null}
          {test ? <SamlTestResultView result={test} /> : null}
        </SettingsSection>
      ) : (
        <SettingsSection
          id="oidc"
          title="OpenID Connect"
          description="Register a confidential web client at the provider (Google, Keycloak, Authentik, Microsoft Entra, or GitHub behind Dex) with this redirect URI."
        >
          <div className="mb-4">
            <CopyRow label="Redirect URI" value={oidc.redirectUri} testId="sso-redirect-uri" />
          </div>
          {saml.configured ? (
            <p className="mb-3 text-[12.5px] text-fg-muted">Saving OpenID Connect replaces the SAML provider set up now.</p>
          ) : null}
          <SsoSettingsForm action={saveSsoAction} org={org} settings={oidc} />
        </SettingsSection>
      )}

      <SettingsSection
        id="groups"
        title="Groups → teams"
        description="Identity-provider groups (the SAML or OIDC groups attribute, or groups pushed by SCIM) become team memberships and, if you choose, a role. Applied at each sign-in and each SCIM change; those memberships are marked “managed by your identity provider” and cannot be changed by hand."
      >
        <GroupMappingTable page={groups} org={org} remove={removeGroupMappingAction} />
        <div className="mt-4">
          <GroupMappingForm page={groups} org={org} action={saveGroupMappingAction} />
        </div>
      </SettingsSection>

      <SettingsSection
        id="scim"
        title="SCIM provisioning"
        description="Okta and Microsoft Entra ID create, update and deactivate members here (SCIM 2.0). Deactivating someone removes them from the organization and ends their sessions and personal tokens at once; the last owner is never removed."
      >
        <div className="mb-3 flex flex-col gap-2">
          <CopyRow label="SCIM base URL" value={scim.baseUrl} testId="scim-base-url" />
          <p className="text-[13px]" data-testid="scim-state">
            {scim.exists ? (
              <>
                Token <code className="font-mono text-[12px]">{scim.prefix}…</code> made <TimeAgo ms={scim.createdAt} now={now} />
                {scim.lastUsedAt ? (
                  <>
                    , last used <TimeAgo ms={scim.lastUsedAt} now={now} />
                  </>
                ) : (
                  ", not used yet"
                )}
                .
              </>
            ) : (
              <span className="text-fg-muted">No token: SCIM is off.</span>
            )}
          </p>
        </div>
        <ScimTokenForms rotate={rotateScimTokenAction} revoke={revokeScimTokenAction} org={org} scim={scim} />
      </SettingsSection>

      {saml.canEdit && (saml.configured || oidc.configured) ? (
        <DangerZone
          title={saml.configured ? "Remove SAML" : "Remove single sign-on"}
          description="People provisioned by the provider stay members; those without a password can no longer sign in."
        >
          {saml.configured ? <SamlRemoveForm action={removeSamlAction} org={org} /> : <SsoRemoveForm action={removeSsoAction} org={org} />}
        </DangerZone>
      ) : null}
    </div>
  );
}
