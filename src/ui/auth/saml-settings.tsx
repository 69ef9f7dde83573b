"use client";

import { useState } from "react";
import type { SamlSettingsView } from "@/server/saml/settings";
import { type FormAction, SettingsForm } from "../kit/settings-form";

const LABELS = {
  source: "Identity provider",
  metadataUrl: "Metadata URL",
  metadataXml: "Metadata XML",
  idpEntityId: "Entity id (issuer)",
  idpSsoUrl: "Single sign-on URL",
  idpCerts: "Signing certificates",
  attrEmail: "Email attribute",
  attrName: "Name attribute(s)",
  attrGroups: "Groups attribute",
  defaultRole: "Role of new people",
};

const SOURCES = [
  { id: "url", label: "Metadata URL" },
  { id: "xml", label: "Metadata XML" },
  { id: "manual", label: "By hand" },
] as const;

/**
 * The identity provider (by metadata URL, pasted metadata or by hand), the attribute mapping with
 * Okta's, Entra's and Google's names one click away, the role of newcomers and "Require SSO".
 */
export function SamlSettingsForm({ action, org, settings }: { action: FormAction; org: string; settings: SamlSettingsView }) {
  const [source, setSource] = useState<"url" | "xml" | "manual">(settings.idp.metadataUrl ? "url" : settings.configured ? "manual" : "url");
  const [mapping, setMapping] = useState(settings.mapping);
  return (
    <SettingsForm
      action={action}
      hidden={{ org, source }}
      canManage={settings.canEdit}
      fieldLabels={LABELS}
      submitLabel="Save SAML"
      testId="saml-form"
    >
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-[13px] font-medium">{LABELS.source}</legend>
        <div className="flex flex-wrap gap-1" role="radiogroup" aria-label="How to enter the identity provider">
          {SOURCES.map((s) => (
            <label
              key={s.id}
              className={`flex cursor-pointer items-center gap-1.5 rounded-md border px-2.5 py-1 text-[13px] ${source === s.id ? "border-border-strong bg-muted font-medium" : "border-border"}`}
            >
              <input type="radio" name="sourceChoice" value={s.id} checked={source === s.id} onChange={() => setSource(s.id)} />
              {s.label}
            </label>
          ))}
        </div>
        {source === "url" ? (
          <label className="flex max-w-[620px] flex-col gap-1 text-[13px]">
            <span className="font-medium">{LABELS.metadataUrl}</span>
            <input
              name="metadataUrl"
              className="input font-mono"
              defaultValue={settings.idp.metadataUrl ?? ""}
              placeholder="https://example.okta.com/app/…/sso/saml/metadata"
              spellCheck={false}
            />
            <span className="text-[12px] text-fg-muted">
              Read now, when saving: the entity id, sign-in URL and certificates it lists are stored.
            </span>
          </label>
        ) : null}
        {source === "xml" ? (
          <label className="flex max-w-[620px] flex-col gap-1 text-[13px]">
            <span className="font-medium">{LABELS.metadataXml}</span>
            <textarea
              name="metadataXml"
              rows={6}
              className="input font-mono text-[12px]"
              placeholder="<EntityDescriptor …>"
              spellCheck={false}
            />
          </label>
        ) : null}
        {source === "manual" ? (
          <>
            <label className="flex max-w-[620px] flex-col gap-1 text-[13px]">
              <span className="font-medium">{LABELS.idpEntityId}</span>
              <input name="idpEntityId" className="input font-mono" defaultValue={settings.idp.entityId} spellCheck={false} />
            </label>
            <label className="flex max-w-[620px] flex-col gap-1 text-[13px]">
              <span className="font-medium">{LABELS.idpSsoUrl}</span>
              <input name="idpSsoUrl" className="input font-mono" defaultValue={settings.idp.ssoUrl} spellCheck={false} />
            </label>
            <label className="flex max-w-[620px] flex-col gap-1 text-[13px]">
              <span className="font-medium">{LABELS.idpCerts}</span>
              <textarea
                name="idpCerts"
                rows={5}
                className="input font-mono text-[12px]"
                placeholder="-----BEGIN CERTIFICATE-----"
                spellCheck={false}
              />
              <span className="text-[12px] text-fg-muted">
                {settings.idp.certificates.length ? "Leave blank to keep the stored ones. " : ""}
                During a rollover paste both certificates: responses signed by either are accepted.
              </span>
            </label>
          </>
        ) : null}
      </fieldset>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-[13px] font-medium">Attributes</legend>
        <div className="flex flex-wrap items-center gap-1 text-[12.5px]">
          <span className="text-fg-muted">Preset:</span>
          {settings.presets.map((p) => (
            <button key={p.id} type="button" className="btn btn-sm" onClick={() => setMapping(p.mapping)}>
              {p.label}
            </button>
          ))}
        </div>
        {(["attrEmail", "attrName", "attrGroups"] as const).map((field) => {
          const key = field === "attrEmail" ? "email" : field === "attrName" ? "name" : "groups";
          return (
            <label key={field} className="flex max-w-[620px] flex-col gap-1 text-[13px]">
              <span className="font-medium">{LABELS[field]}</span>
              <input
                name={field}
                className="input font-mono text-[12px]"
                value={mapping[key]}
                onChange={(e) => setMapping({ ...mapping, [key]: e.target.value })}
                spellCheck={false}
              />
            </label>
          );
        })}
        <span className="text-[12px] text-fg-muted">
          Without an email attribute the NameID is used when it is an address. Several name attributes are joined with a space
          (firstName,lastName).
        </span>
      </fieldset>
      <label className="flex max-w-[520px] flex-col gap-1 text-[13px]">
        <span className="font-medium">{LABELS.defaultRole}</span>
        <select name="defaultRole" className="input w-[160px]" defaultValue={settings.defaultRole}>
          <option value="viewer">viewer</option>
          <option value="member">member</option>
          <option value="admin">admin</option>
        </select>
        <span className="text-[12px] text-fg-muted">Group mappings below may give teams and a role instead.</span>
      </label>
      <label className="flex items-start gap-2 text-[13px]">
        <input type="checkbox" name="required" defaultChecked={settings.required} className="mt-[3px]" />
        <span>
          <span className="font-medium">Require SSO</span>
          <span className="block text-[12px] text-fg-muted">
            Members, admins and viewers cannot sign in with a password (switching it on signs them out). Owners still can, so a broken
            provider never locks the organization out.
          </span>
        </span>
      </label>
    </SettingsForm>
  );
}

/** Starts a sign-in at the provider that only shows what it asserted (nobody is signed in). */
export function SamlTestForm({ action, org }: { action: FormAction; org: string }) {
  return (
    <SettingsForm action={action} hidden={{ org }} canManage submitLabel="Test sign-in" testId="saml-test">
      <span className="text-[12.5px] text-fg-muted">
        Sign in at the provider as anyone; the assertion is shown here, nothing else happens.
      </span>
    </SettingsForm>
  );
}

export function SamlRemoveForm({ action, org }: { action: FormAction; org: string }) {
  return (
    <SettingsForm action={action} hidden={{ org }} canManage submitLabel="Remove SAML" testId="saml-remove">
      <span className="sr-only">Removes the identity provider's settings.</span>
    </SettingsForm>
  );
}
