/** Organizations of a viewer and the projects they may see (reads; project settings are project-admin.ts). */
import { AppError } from "../../core/errors";
import type { Db } from "../../storage/db";
import { listEnvironments } from "../../storage/issues/environments";
import { firstSeenOfProject } from "../../storage/issues/issues";
import { listTeams, teamProjectIdsOfUser } from "../../storage/members/teams";
import { listMemberships } from "../../storage/orgs/orgs";
import { type ProjectFacts, readProjectFacts } from "../../storage/orgs/project-facts";
import { type Access, credentialOf } from "../access/access";
import { accessScopes, type Permits, permitsAll } from "../access/permissions";
import { canSeeProject } from "../access/visibility";
import type { OrgSummary, ProjectSummary, Viewer } from "../types";
import { createOrganization } from "./create";

/** Organizations as the viewer sees them (`app().orgs`). */
export interface OrgServices {
  listForViewer(viewer: Viewer): Promise<OrgSummary[]>;
  /** Throws not_found when the org does not exist or the viewer is not a member. */
  get(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  /**
   * What the viewer may do in the organization, action by action, straight from the permission
   * table (src/server/access/permissions.ts): the screens show a control only when this says yes,
   * so they never repeat a role check. Throws not_found like `get`.
   */
  can(viewer: Viewer, orgSlug: string): Promise<Permits>;
  /** An owner of any organization creates another, as its owner (src/server/orgs/create.ts). */
  create(viewer: Viewer, input: { name: string; slug: string }): Promise<{ slug: string }>;
}

export function createOrgServices(deps: { db: Db; now: () => number; access: Access }): OrgServices {
  const { db, now, access } = deps;
  return {
    async listForViewer(viewer) {
      return (await listMemberships(db, viewer.userId))
        .filter((m) => viewer.tokenOrgId == null || m.id === viewer.tokenOrgId)
        .map((m) => ({ id: m.id, slug: m.slug, name: m.name, role: m.role, createdAt: m.createdAt }));
    },
    async get(viewer, orgSlug) {
      return access.authorize(viewer, orgSlug, "org.read");
    },
    async can(viewer, orgSlug) {
      const org = await access.membershipOrThrow(viewer, orgSlug);
      return permitsAll(org.role, credentialOf(viewer));
    },
    create: (viewer, input) => createOrganization(db, now, viewer, input),
  };
}

export interface ProjectReads {
  list(viewer: Viewer, orgSlug: string): Promise<ProjectSummary[]>;
  /** A project by slug or, as Sentry takes it, by numeric id. */
  get(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<ProjectSummary>;
  /** What Sentry's project detail adds: the teams that own it and when its first event came (null: none yet). */
  ownership(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<ProjectOwnership>;
  /** Sentry's team projects (`GET /teams/{org}/{team}/projects/`): the team's projects the viewer sees, and the team. */
  listOfTeam(viewer: Viewer, orgSlug: string, teamSlug: string): Promise<{ org: OrgSummary; team: TeamRef; projects: ProjectSummary[] }>;
  /** Sentry's environment lists: the names one project's events carried, or (no project) those of every project the viewer sees. */
  environments(viewer: Viewer, orgSlug: string, projectRef?: string): Promise<string[]>;
  /** What Sentry's project serializer reads besides the project: the caller's scopes and, per visible project, its facts (one query per table). */
  sentryFacts(viewer: Viewer, orgSlug: string, projectIds: number[]): Promise<ProjectSentryFacts>;
}

export interface ProjectSentryFacts {
  /** Sentry's `access`: the scopes the caller acts with in the organization */
  access: string[];
  facts: Map<number, ProjectFacts>;
  /** the projects of the caller's teams (Sentry's `isMember`) */
  memberOf: Set<number>;
}

export interface TeamRef {
  id: number;
  slug: string;
  name: string;
}

export interface ProjectOwnership {
  teams: TeamRef[];
  firstEvent: number | null;
}

export function createProjectReads(deps: { db: Db; access: Access }): ProjectReads {
  const { db, access } = deps;

  // Sentry's project routes take `project_id_or_slug` (access.projectOrThrow reads either).
  const visible = (viewer: Viewer, orgSlug: string, projectRef: string) =>
    access.projectOrThrow(viewer, orgSlug, projectRef, "project.read");

  return {
    async list(viewer, orgSlug) {
      const org = await access.authorize(viewer, orgSlug, "project.read");
      return Promise.all([...(await access.projectMap(org)).values()].map(access.projectSummary));
    },
    async listOfTeam(viewer, orgSlug, teamSlug) {
      const org = await access.authorize(viewer, orgSlug, "project.read");
      const team = (await listTeams(db, org.id)).find((t) => t.slug === teamSlug);
      if (!team) throw new AppError("not_found", "Team not found.");
      // Only the projects the viewer may see: a member outside the team sees none of its projects.
      const mine = [...(await access.projectMap(org)).values()].filter((p) => team.projectIds.includes(p.id));
      return { org, team: { id: team.id, slug: team.slug, name: team.name }, projects: await Promise.all(mine.map(access.projectSummary)) };
    },
    async get(viewer, orgSlug, projectSlug) {
      const { project } = await visible(viewer, orgSlug, projectSlug);
      return access.projectSummary(project);
    },
    async sentryFacts(viewer, orgSlug, projectIds) {
      const org = await access.authorize(viewer, orgSlug, "project.read");
      // Sentry's `isMember`: the caller is on one of the project's teams (an admin who sees every
      // project need not be; an organization token is on none).
      const [facts, memberOf] = await Promise.all([
        readProjectFacts(
          db,
          projectIds.filter((id) => canSeeProject(org, id)),
        ),
        teamProjectIdsOfUser(db, org.id, viewer.userId),
      ]);
      return { access: accessScopes(org.role, credentialOf(viewer)), facts, memberOf };
    },
    async ownership(viewer, orgSlug, projectSlug) {
      const { org, project } = await visible(viewer, orgSlug, projectSlug);
      const [teams, firstEvent] = await Promise.all([listTeams(db, org.id), firstSeenOfProject(db, project.id)]);
      return {
        teams: teams.filter((t) => t.projectIds.includes(project.id)).map((t) => ({ id: t.id, slug: t.slug, name: t.name })),
        firstEvent,
      };
    },
    async environments(viewer, orgSlug, projectRef) {
      if (projectRef === undefined) {
        access.requireScope(viewer, "event:read");
        const org = await access.membershipOrThrow(viewer, orgSlug);
        return listEnvironments(db, org.id, org.visibleProjectIds ?? null);
      }
      const { org, project } = await visible(viewer, orgSlug, projectRef);
      access.requireScope(viewer, "event:read");
      return listEnvironments(db, org.id, [project.id]);
    },
  };
}
