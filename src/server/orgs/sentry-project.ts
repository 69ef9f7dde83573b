/**
 * Sentry's project serializer shape, for `sentry-cli projects list` and scripts reading
 * `GET /api/0/organizations/{org}/projects/` and `GET /api/0/projects/{org}/{project}/`.
 * Teams are not modelled here (another part of Errata owns them): `team` null, `teams` empty.
 */
import type { OrgSummary, ProjectSummary } from "../types";

export function sentryProject(p: ProjectSummary, org: OrgSummary) {
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
    team: null,
    teams: [],
    organization: { id: String(org.id), slug: org.slug, name: org.name },
  };
}
