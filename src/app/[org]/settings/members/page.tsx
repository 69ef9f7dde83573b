import type { Metadata } from "next";
import { DangerZone, SettingsSection } from "@/ui/kit/settings-section";
import { TimeAgo } from "@/ui/kit/time-ago";
import { InvitationActions, InviteForm, RemoveMemberForm, RoleSelect } from "@/ui/members/member-forms";
import { orNotFound, requireViewer, services } from "../../../_lib/server";
import { changeRoleAction, invitationAction, inviteAction, removeMemberAction } from "./actions";

export const metadata: Metadata = { title: "Members" };

const ALL_ROLES = ["viewer", "member", "admin", "owner"];

/** Members with their roles, invitations (pending first), inviting; removing a member last. */
export default async function MembersPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/settings/members`);
  const page = await orNotFound((await services()).members.page(viewer, org));
  const now = Date.now();
  const inviteRoles = page.can.inviteOwners ? ALL_ROLES : ALL_ROLES.filter((r) => r !== "owner");
  const owners = page.members.filter((m) => m.role === "owner").length;
  const pending = page.invitations.filter((i) => i.state === "pending" || i.state === "expired");
  const history = page.invitations.filter((i) => i.state === "accepted" || i.state === "revoked");
  return (
    <div>
      <SettingsSection
        id="members"
        title="Members"
        description="Viewers read; members also triage (resolve, ignore, assign, comment, merge), create releases and upload source maps; admins also delete issues and manage projects, keys, teams, alerts and invitations; owners also change roles and remove members. Tokens never do more than their creator’s role. An organization always keeps at least one owner."
      >
        <table className="stack-table w-full border-collapse rounded-md border border-border text-[13px]" data-testid="members-table">
          <caption className="sr-only">Members</caption>
          <thead>
            <tr className="h-8 border-b border-border bg-subtle text-left text-[11px] font-medium tracking-wide text-fg-muted uppercase">
              <th scope="col" className="px-3 font-medium">
                Member
              </th>
              <th scope="col" className="px-3 font-medium">
                Role
              </th>
              <th scope="col" className="hidden px-3 font-medium sm:table-cell">
                Joined
              </th>
            </tr>
          </thead>
          <tbody>
            {page.members.map((m) => (
              <tr key={m.userId} className="h-10 border-b border-border last:border-b-0" data-testid="member-row" data-email={m.email}>
                <td className="px-3 py-1.5">
                  <div className="font-medium">{m.name}</div>
                  <div className="text-[12px] text-fg-muted">
                    {m.email}
                    {m.userId === viewer.userId ? " (you)" : ""}
                  </div>
                </td>
                <td className="px-3 py-1.5" data-label="Role">
                  {m.managed ? (
                    <span className="flex flex-wrap items-center gap-1.5">
                      <span className="badge">{m.role}</span>
                      <span className="text-[12px] text-fg-muted" data-testid="member-managed">
                        managed by your identity provider
                      </span>
                    </span>
                  ) : page.can.manage && !(m.role === "owner" && owners <= 1) ? (
                    <RoleSelect action={changeRoleAction} org={org} userId={m.userId} email={m.email} role={m.role} roles={ALL_ROLES} />
                  ) : (
                    <span className="badge" title={m.role === "owner" && owners <= 1 ? "The last owner keeps the role" : undefined}>
                      {m.role}
                    </span>
                  )}
                </td>
                <td className="hidden px-3 py-1.5 text-fg-muted sm:table-cell">
                  <TimeAgo ms={m.createdAt} now={now} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </SettingsSection>

      <SettingsSection
        id="invite"
        title="Invite"
        description={
          page.can.inviteOwners
            ? "The invited person picks a name and password on the link's page and lands in this organization. Links work once and expire after 7 days."
            : "The invited person picks a name and password on the link's page and lands in this organization. Links work once and expire after 7 days. Only owners invite owners."
        }
      >
        <InviteForm action={inviteAction} org={org} roles={inviteRoles} mail={page.mail} />
      </SettingsSection>

      <SettingsSection
        id="invitations"
        title="Invitations"
        description="Pending and expired invitations; resending makes a new link and the old one stops working."
      >
        {pending.length === 0 ? (
          <p className="text-fg-muted">No open invitations.</p>
        ) : (
          <ul className="flex flex-col divide-y divide-border rounded-md border border-border" aria-label="Open invitations">
            {pending.map((i) => (
              <li
                key={i.id}
                className="flex flex-wrap items-start gap-3 px-3 py-2"
                data-testid="invitation-row"
                data-email={i.email}
                data-state={i.state}
              >
                <div className="min-w-0 flex-1">
                  <div className="font-medium [overflow-wrap:anywhere]">{i.email}</div>
                  <div className="text-[12px] text-fg-muted">
                    {i.role} · <span className={i.state === "expired" ? "text-danger" : ""}>{i.state}</span> ·{" "}
                    {i.state === "expired" ? "expired " : "expires "}
                    <TimeAgo ms={i.expiresAt} now={now} />
                  </div>
                </div>
                <InvitationActions
                  action={invitationAction}
                  org={org}
                  invitationId={i.id}
                  email={i.email}
                  mail={page.mail}
                  canResend={i.role !== "owner" || page.can.inviteOwners}
                />
              </li>
            ))}
          </ul>
        )}
        {history.length > 0 ? (
          <details className="mt-3">
            <summary className="cursor-pointer text-[12.5px] text-fg-muted">Accepted and revoked (last 30 days)</summary>
            <ul className="mt-2 flex flex-col gap-1 text-[12.5px]">
              {history.map((i) => (
                <li key={i.id} data-testid="invitation-history" data-state={i.state}>
                  {i.email} · {i.role} · {i.state}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
      </SettingsSection>

      {page.can.manage ? (
        <DangerZone
          title="Remove a member"
          description="They lose access at once: their sessions end and their tokens for this organization are deleted. Issues stay assigned to them until reassigned. The last owner cannot be removed."
        >
          <RemoveMemberForm
            action={removeMemberAction}
            org={org}
            members={page.members.filter((m) => m.userId !== viewer.userId && !(m.role === "owner" && owners <= 1))}
          />
        </DangerZone>
      ) : null}
    </div>
  );
}
