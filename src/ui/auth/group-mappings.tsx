"use client";

import { useActionState } from "react";
import type { GroupMappingsPage } from "@/server/identity/group-mappings";
import { type FormAction, FormStatus, IDLE, SettingsForm } from "../kit/settings-form";

/** Identity-provider groups and what each becomes: a team, a role, or both. */
export function GroupMappingTable({ page, org, remove }: { page: GroupMappingsPage; org: string; remove: FormAction }) {
  if (page.groups.length === 0)
    return (
      <p className="text-[13px] text-fg-muted" data-testid="group-mappings-empty">
        No groups yet. Name one below, or push groups with SCIM (each becomes a team of its name).
      </p>
    );
  return (
    <div className="relative overflow-x-auto rounded-md border border-border">
      <table className="w-full min-w-[520px] border-collapse text-[13px]" data-testid="group-mappings">
        <caption className="sr-only">Group mappings</caption>
        <thead>
          <tr className="h-8 border-b border-border bg-subtle text-left text-[11px] tracking-wide text-fg-muted uppercase">
            <th scope="col" className="px-3 font-medium">
              Group
            </th>
            <th scope="col" className="px-3 font-medium">
              Team
            </th>
            <th scope="col" className="px-3 font-medium">
              Role
            </th>
            <th scope="col" className="px-3 text-right font-medium">
              People
            </th>
            <th scope="col" className="px-3">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {page.groups.map((g) => (
            <tr key={g.id} className="h-9 border-b border-border last:border-b-0" data-testid="group-mapping-row" data-group={g.name}>
              <td className="px-3 py-1">
                <span className="font-mono text-[12px] break-all">{g.name}</span>
                {g.source === "scim" ? <span className="badge ml-2">SCIM</span> : null}
              </td>
              <td className="px-3 py-1">{g.team ? g.team.name : <span className="text-fg-dim">—</span>}</td>
              <td className="px-3 py-1">{g.role ?? <span className="text-fg-dim">—</span>}</td>
              <td className="px-3 py-1 text-right tabular-nums">{g.members}</td>
              <td className="px-3 py-1 text-right">
                {page.canEdit && (g.team || g.role) ? <RemoveMapping action={remove} org={org} id={g.id} name={g.name} /> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RemoveMapping({ action, org, id, name }: { action: FormAction; org: string; id: number; name: string }) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  return (
    <form action={formAction} className="flex items-center justify-end gap-2">
      <input type="hidden" name="org" value={org} />
      <input type="hidden" name="groupId" value={String(id)} />
      <button type="submit" className="btn btn-sm text-danger" disabled={pending} aria-label={`Remove the mapping of ${name}`}>
        Remove
      </button>
      <FormStatus state={state} />
    </form>
  );
}

export function GroupMappingForm({ page, org, action }: { page: GroupMappingsPage; org: string; action: FormAction }) {
  return (
    <SettingsForm
      action={action}
      hidden={{ org }}
      canManage={page.canEdit}
      resetOnSuccess
      submitLabel="Save mapping"
      fieldLabels={{ group: "Group", team: "Team", role: "Role" }}
      testId="group-mapping-form"
    >
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col gap-1 text-[13px]">
          <span className="font-medium">Group</span>
          <input
            name="group"
            className="input w-[240px] max-w-full font-mono text-[12px]"
            placeholder="engineering"
            required
            maxLength={200}
            spellCheck={false}
          />
        </label>
        <label className="flex flex-col gap-1 text-[13px]">
          <span className="font-medium">Team</span>
          <select name="team" className="input w-[180px]" defaultValue="">
            <option value="">no team</option>
            {page.teams.map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-[13px]">
          <span className="font-medium">Role</span>
          <select name="role" className="input w-[140px]" defaultValue="">
            <option value="">keep role</option>
            <option value="viewer">viewer</option>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </label>
      </div>
      <span className="text-[12px] text-fg-muted">
        As the provider sends it (Entra sends group object ids unless configured otherwise). Owners are never demoted by a group.
      </span>
    </SettingsForm>
  );
}
