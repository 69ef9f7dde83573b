"use client";

import type { SsoSettingsView } from "@/server/auth/sso";
import { type FormAction, SettingsForm } from "../kit/settings-form";

const LABELS = { issuer: "Issuer URL", clientId: "Client id", clientSecret: "Client secret", defaultRole: "Role of new people" };

/** The provider's settings; the secret is write-only (blank keeps the stored one). */
export function SsoSettingsForm({ action, org, settings }: { action: FormAction; org: string; settings: SsoSettingsView }) {
  return (
    <SettingsForm
      action={action}
      hidden={{ org }}
      canManage={settings.canEdit}
      fieldLabels={LABELS}
      submitLabel="Save and check"
      testId="sso-form"
    >
      <label className="flex max-w-[520px] flex-col gap-1 text-[13px]">
        <span className="font-medium">{LABELS.issuer}</span>
        <input
          name="issuer"
          className="input font-mono"
          defaultValue={settings.issuer}
          placeholder="https://auth.example.com/realms/acme"
          required
          spellCheck={false}
        />
      </label>
      <label className="flex max-w-[520px] flex-col gap-1 text-[13px]">
        <span className="font-medium">{LABELS.clientId}</span>
        <input name="clientId" className="input font-mono" defaultValue={settings.clientId} required spellCheck={false} />
      </label>
      <label className="flex max-w-[520px] flex-col gap-1 text-[13px]">
        <span className="font-medium">{LABELS.clientSecret}</span>
        <input
          name="clientSecret"
          type="password"
          className="input font-mono"
          autoComplete="off"
          placeholder={settings.secretSet ? "Stored — leave blank to keep it" : ""}
        />
      </label>
      <label className="flex max-w-[520px] flex-col gap-1 text-[13px]">
        <span className="font-medium">{LABELS.defaultRole}</span>
        <select name="defaultRole" className="input w-[160px]" defaultValue={settings.defaultRole}>
          <option value="viewer">viewer</option>
          <option value="member">member</option>
          <option value="admin">admin</option>
        </select>
        <span className="text-[12px] text-fg-muted">They join the organization's first team; change roles and teams later as usual.</span>
      </label>
      <label className="flex items-start gap-2 text-[13px]">
        <input type="checkbox" name="required" defaultChecked={settings.required} className="mt-[3px]" />
        <span>
          <span className="font-medium">Require SSO</span>
          <span className="block text-[12px] text-fg-muted">
            Members, admins and viewers cannot sign in with a password. Owners still can, so a broken provider never locks the organization
            out.
          </span>
        </span>
      </label>
    </SettingsForm>
  );
}

export function SsoRemoveForm({ action, org }: { action: FormAction; org: string }) {
  return (
    <SettingsForm action={action} hidden={{ org }} canManage submitLabel="Remove single sign-on" testId="sso-remove">
      <span className="sr-only">Removes the provider's settings.</span>
    </SettingsForm>
  );
}
