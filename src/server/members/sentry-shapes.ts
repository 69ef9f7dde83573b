/**
 * Sentry's REST shapes for organizations, members, teams and DSN keys (field names as Sentry's
 * serializers), so provisioning scripts written for Sentry's API read them.
 */

import { regionUrlFor } from "../../ingest/compat/region-url";
import type { ProjectKeyView } from "../orgs/project-admin";
import type { OrgSummary, Viewer } from "../types";
import type { InvitationInfo, MemberInfo } from "./members";
import type { TeamView } from "./teams";

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

export const sentryMember = (m: MemberInfo) => ({
  id: m.userId,
  email: m.email,
  name: m.name,
  role: m.role,
  orgRole: m.role,
  pending: false,
  expired: false,
  dateCreated: new Date(m.createdAt).toISOString(),
  user: { id: m.userId, email: m.email, name: m.name },
});

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
export const sentryInvitedMember = (i: InvitationInfo) => ({
  id: `invite-${i.id}`,
  email: i.email,
  name: i.email,
  role: i.role,
  orgRole: i.role,
  pending: true,
  expired: false,
  inviteStatus: "approved",
  dateCreated: new Date(i.createdAt).toISOString(),
  user: null,
});

export const sentryTeam = (t: TeamView) => ({
  id: String(t.id),
  slug: t.slug,
  name: t.name,
  memberCount: t.members.length,
  projects: t.projects.map((p) => ({ id: String(p.id), slug: p.slug, name: p.name })),
});

export const sentryKey = (k: ProjectKeyView, projectId: number) => ({
  id: k.publicKey,
  name: k.label,
  label: k.label,
  public: k.publicKey,
  isActive: k.active,
  projectId,
  dateCreated: new Date(k.createdAt).toISOString(),
  dsn: { public: k.dsn },
});
