/** Organizations of a viewer and the projects they may see (reads; project settings are project-admin.ts). */
import { AppError } from "../../core/errors";
import type { Db } from "../../storage/db";
import { firstSeenOfProject } from "../../storage/issues/issues";
import { listTeams } from "../../storage/members/teams";
import { listMemberships } from "../../storage/orgs/orgs";
import { type ProjectFacts, readProjectFacts } from "../../storage/orgs/project-facts";
import { findProjectByRef } from "../../storage/orgs/projects";
import { type Access, credentialOf } from "../access/access";
import { accessScopes, permitsAll } from "../access/permissions";
import { canSeeProject } from "../access/visibility";
import type { AppServices } from "../services";
import type { ProjectSummary, Viewer } from "../types";
import { createOrganization } from "./create";

export function createOrgServices(deps: { db: Db; now: () => number; access: Access }): AppServices["orgs"] {
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
  /** What Sentry's project serializer reads besides the project: the caller's scopes and, per visible project, its facts (one query per table). */
  sentryFacts(viewer: Viewer, orgSlug: string, projectIds: number[]): Promise<ProjectSentryFacts>;
}

export interface ProjectSentryFacts {
  /** Sentry's `access`: the scopes the caller acts with in the organization */
  access: string[];
  facts: Map<number, ProjectFacts>;
}

export interface ProjectOwnership {
  teams: Array<{ id: number; slug: string; name: string }>;
  firstEvent: number | null;
}

export function createProjectReads(deps: { db: Db; access: Access }): ProjectReads {
  const { db, access } = deps;

  async function visible(viewer: Viewer, orgSlug: string, projectSlug: string) {
    const org = await access.authorize(viewer, orgSlug, "project.read");
    const p = await findProjectByRef(db, org.id, projectSlug);
    if (!p || !canSeeProject(org, p.id)) throw new AppError("not_found", "Project not found.");
    return { org, p };
  }

  return {
    async list(viewer, orgSlug) {
      const org = await access.authorize(viewer, orgSlug, "project.read");
      return Promise.all([...(await access.projectMap(org)).values()].map(access.projectSummary));
    },
    async get(viewer, orgSlug, projectSlug) {
      const { p } = await visible(viewer, orgSlug, projectSlug);
      return access.projectSummary(p);
    },
    async sentryFacts(viewer, orgSlug, projectIds) {
      const org = await access.authorize(viewer, orgSlug, "project.read");
      const facts = await readProjectFacts(
        db,
        projectIds.filter((id) => canSeeProject(org, id)),
      );
      return { access: accessScopes(org.role, credentialOf(viewer)), facts };
    },
    async ownership(viewer, orgSlug, projectSlug) {
      const { org, p } = await visible(viewer, orgSlug, projectSlug);
      const [teams, firstEvent] = await Promise.all([listTeams(db, org.id), firstSeenOfProject(db, p.id)]);
      return {
        teams: teams.filter((t) => t.projectIds.includes(p.id)).map((t) => ({ id: t.id, slug: t.slug, name: t.name })),
        firstEvent,
      };
    },
  };
}
