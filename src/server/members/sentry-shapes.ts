/**
 * Sentry's REST shapes for organizations, members, teams and DSN keys (field names as Sentry's
 * serializers), so provisioning scripts written for Sentry's API read them.
 */

import type { ProjectKeyView } from "../orgs/project-admin";
import type { OrgSummary } from "../types";
import type { MemberInfo } from "./members";
import type { TeamView } from "./teams";

export const sentryOrg = (o: OrgSummary) => ({
  id: String(o.id),
  slug: o.slug,
  name: o.name,
  status: { id: "active", name: "active" },
  orgRole: o.role,
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
