/**
 * Sentry's project serializer shape, for `sentry-cli projects list` and scripts reading
 * `GET /api/0/organizations/{org}/projects/` and `GET /api/0/projects/{org}/{project}/`.
 * The detail adds the owning teams and `firstEvent` (ProjectReads.ownership); lists leave them empty.
 */
import type { OrgSummary, ProjectSummary } from "../types";
import type { ProjectOwnership } from "./reads";

export function sentryProject(p: ProjectSummary, org: OrgSummary, own?: ProjectOwnership) {
  const teams = (own?.teams ?? []).map((t) => ({ id: String(t.id), slug: t.slug, name: t.name }));
  return {
    id: String(p.id),
    slug: p.slug,
    name: p.name,
    platform: p.platform,
    platforms: [p.platform],
    status: "active",
    isBookmarked: false,
    isMember: true,
    hasAccess: true,
    features: [],
    team: teams[0] ?? null,
    teams,
    firstEvent: own?.firstEvent ? new Date(own.firstEvent).toISOString() : null,
    dateCreated: p.createdAt ? new Date(p.createdAt).toISOString() : null,
    organization: { id: String(org.id), slug: org.slug, name: org.name },
  };
}
