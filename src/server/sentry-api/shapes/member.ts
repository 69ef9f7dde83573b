/**
 * Sentry's REST shapes for organizations, members, teams and DSN keys (field names as Sentry's
 * serializers), so provisioning scripts written for Sentry's API read them.
 */

import { dsnEndpoints } from "../../../core/dsn";
import type { InvitationInfo, MemberInfo, MemberSentryFacts } from "../../members/members";
import type { TeamView } from "../../members/teams";
import type { ProjectKeyView } from "../../orgs/project-admin";
import type { OrgSummary, Viewer } from "../../types";
import { regionUrlFor } from "../region-url";

/**
 * Sentry's organization: `dateCreated` (sentry-cli's `organizations list` needs it) and `links`;
 * `userAgent` picks the regionUrl that client can follow (compat/region-url.ts).
 */
export const sentryOrg = (o: OrgSummary, publicUrl: string, userAgent: string | null = null) => ({
  id: String(o.id),
  slug: o.slug,
  name: o.name,
  dateCreated: new Date(o.createdAt ?? 0).toISOString(),
  status: { id: "active", name: "active" },
  orgRole: o.role,
  isEarlyAdopter: false,
  require2FA: false,
  // Members neither invite nor create projects (admins do: permissions.ts); no superuser support access.
  allowMemberInvite: false,
  allowMemberProjectCreation: false,
  allowSuperuserAccess: false,
  avatar: { avatarType: "letter_avatar", avatarUuid: null },
  links: { organizationUrl: publicUrl.replace(/\/+$/, ""), regionUrl: regionUrlFor(publicUrl, userAgent) },
  hasAuthProvider: false,
  features: [] as string[],
});

/** Sentry's member flags: `sso:linked`, and `idp:provisioned` for a member SCIM or a group mapping manages (no member limits). */
const memberFlags = (ssoLinked: boolean, provisioned: boolean) => ({
  "idp:provisioned": provisioned,
  "idp:role-restricted": provisioned,
  "sso:linked": ssoLinked,
  "sso:invalid": false,
  "member-limit:restricted": false,
  "partnership:restricted": false,
});

/** Sentry's member in a list: a joined member's invitation is "approved"; `inviterName` when they joined by invitation. */
export const sentryMember = (m: MemberInfo, f: MemberSentryFacts) => ({
  id: m.userId,
  email: m.email,
  name: m.name,
  role: m.role,
  orgRole: m.role,
  pending: false,
  expired: false,
  inviteStatus: "approved",
  inviterName: f.inviters.get(m.userId) ?? null,
  flags: memberFlags(f.ssoLinked.has(m.userId), m.managed === true),
  dateCreated: new Date(m.createdAt).toISOString(),
  user: { id: m.userId, email: m.email, name: m.name },
});

const ROLE_NAMES: Record<string, string> = { viewer: "Viewer", member: "Member", admin: "Admin", owner: "Owner" };

/**
 * Sentry's member detail: the list shape plus teams and roles. Errata has no team roles: a team
 * membership is Sentry's default ("contributor", which Sentry sends as a null `role`), and there is
 * no team-role list to choose from.
 */
export const sentryMemberDetail = (m: MemberInfo, f: MemberSentryFacts) => {
  const teams = f.teams.get(m.userId) ?? [];
  return {
    ...sentryMember(m, f),
    // A joined member has no invitation link left.
    invite_link: null,
    isOnlyOwner: m.role === "owner" && f.owners === 1,
    teams,
    teamRoles: teams.map((teamSlug) => ({ teamSlug, role: null })),
    teamRoleList: [],
    orgRoleList: f.roles.map((r) => ({
      id: r.id,
      name: ROLE_NAMES[r.id] ?? r.id,
      scopes: r.scopes,
      allowed: r.allowed,
      isAllowed: r.allowed,
      isRetired: false,
      isTeamRolesAllowed: false,
    })),
  };
};

/** Sentry's user serializer for the caller (`GET /api/0/auth/`): identity only, no secrets. */
export const sentryUser = (v: Viewer) => ({
  id: v.userId,
  name: v.name,
  username: v.email,
  email: v.email,
  avatarUrl: null,
  isActive: true,
  hasPasswordAuth: true,
  isManaged: false,
  has2fa: false,
  isSuperuser: false,
  isStaff: false,
  emails: [{ id: v.userId, email: v.email, is_verified: true }],
  avatar: { avatarType: "letter_avatar", avatarUuid: null },
});

/** A pending invitation as Sentry lists it among the members: no user yet, `pending: true`. */
export const sentryInvitedMember = (i: InvitationInfo, members: MemberInfo[]) => ({
  id: `invite-${i.id}`,
  email: i.email,
  name: i.email,
  role: i.role,
  orgRole: i.role,
  pending: true,
  expired: false,
  inviteStatus: "approved",
  // The inviter's name while they are a member (their email when they set none).
  inviterName: ((m) => (m ? m.name || m.email : null))(members.find((m) => m.userId === i.invitedBy)),
  flags: memberFlags(false, false),
  dateCreated: new Date(i.createdAt).toISOString(),
  user: null,
});

/** Sentry's team, as the caller stands to it. Errata has no team roles, join requests or team avatars. */
export const sentryTeam = (t: TeamView) => ({
  id: String(t.id),
  slug: t.slug,
  name: t.name,
  dateCreated: new Date(t.createdAt).toISOString(),
  memberCount: t.members.length,
  projects: t.projects.map((p) => ({ id: String(p.id), slug: p.slug, name: p.name })),
  access: t.forViewer.access,
  isMember: t.forViewer.isMember,
  hasAccess: t.forViewer.hasAccess,
  isPending: false,
  teamRole: t.forViewer.teamRole,
  flags: { "idp:provisioned": false },
  avatar: { avatarType: "letter_avatar", avatarUuid: null },
});

export const sentryKey = (k: ProjectKeyView, projectId: number) => ({
  id: k.publicKey,
  name: k.label,
  label: k.label,
  public: k.publicKey,
  isActive: k.active,
  projectId,
  dateCreated: new Date(k.createdAt).toISOString(),
  // Every address here is an ingest one (PUBLIC_INGEST_URL): where the SDKs and browsers send.
  dsn: { public: k.dsn, ...dsnEndpoints(k.dsn) },
  // Errata never issues the deprecated secret half; an imported DSN's is kept verbatim.
  secret: k.secretKey,
  rateLimit: k.rateLimit,
  // Errata serves no JavaScript Loader script, so no loader version or options to choose.
  browserSdk: null,
  browserSdkVersion: null,
  dynamicSdkLoaderOptions: null,
});
