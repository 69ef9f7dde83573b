/**
 * Teams own projects (SPEC §3, §6): members and viewers see the projects of their teams, admins and
 * owners all (src/server/access/visibility.ts applies it). Admins and owners manage teams. While an org
 * has no team, every member sees every project; the first team created starts with all of the
 * org's members and projects, so creating it hides nothing until someone narrows it.
 */

import { z } from "zod";
import { AppError } from "../../core/errors";
import { pickProjectByRef } from "../../core/project-ref";
import { nameSchema, slugify, validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { isUniqueViolation, writeTx } from "../../storage/dialect";
import { isManagedTeamMember, managedTeamMembers } from "../../storage/identity/idp-groups";
import { listMembers } from "../../storage/members/members";
import { deleteTeam, insertTeam, listTeams, setTeamMember, setTeamProject } from "../../storage/members/teams";
import { listProjectsOfOrg } from "../../storage/orgs/projects";
import { credentialOf, requirePermission } from "../access/access";
import { accessScopes, roleAtLeast } from "../access/permissions";
import type { OrgSummary, Viewer } from "../types";

export interface TeamView {
  id: number;
  slug: string;
  name: string;
  members: Array<{ userId: string; email: string; name: string; role: string; managed?: boolean }>;
  projects: Array<{ id: number; slug: string; name: string }>;
  /** epoch ms */
  createdAt: number;
  /** the team as the caller stands to it (Sentry's `access`, `isMember`, `hasAccess`) */
  forViewer: { access: string[]; isMember: boolean; hasAccess: boolean; teamRole: "admin" | "contributor" | null };
}

export interface TeamsPage {
  org: OrgSummary;
  teams: TeamView[];
  /** everyone and everything that can be added to a team */
  members: Array<{ userId: string; email: string; name: string; role: string }>;
  projects: Array<{ id: number; slug: string; name: string }>;
}

export interface TeamServices {
  /** The settings page (admins and owners). */
  page(viewer: Viewer, orgSlug: string): Promise<TeamsPage>;
  create(viewer: Viewer, orgSlug: string, input: { name: string }): Promise<TeamView>;
  /** Adds (`on`) or removes a member of the org to or from a team; returns the team after. */
  setMember(viewer: Viewer, orgSlug: string, teamSlug: string, userId: string, on: boolean): Promise<TeamView>;
  /** Gives (`on`) or takes a project of the org to or from a team. */
  setProject(viewer: Viewer, orgSlug: string, teamSlug: string, projectSlug: string, on: boolean): Promise<void>;
  remove(viewer: Viewer, orgSlug: string, teamSlug: string): Promise<void>;
}

export function createTeamServices(deps: {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
}): TeamServices {
  const { db, now } = deps;

  async function admin(viewer: Viewer, orgSlug: string, write: boolean): Promise<OrgSummary> {
    const org = await deps.membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, write ? "team.write" : "team.read");
    return org;
  }

  async function view(org: OrgSummary, viewer: Viewer): Promise<Omit<TeamsPage, "org">> {
    const [teams, members, projects, managed] = await Promise.all([
      listTeams(db, org.id),
      listMembers(db, org.id),
      listProjectsOfOrg(db, org.id),
      managedTeamMembers(db, org.id),
    ]);
    const m = members.map((x) => ({ userId: x.userId, email: x.email, name: x.name, role: x.role }));
    const p = projects.map((x) => ({ id: x.id, slug: x.slug, name: x.name }));
    const access = accessScopes(org.role, credentialOf(viewer));
    // Who teams do not restrict (admins, owners, orgs without teams: access/visibility.ts) reaches every team's projects.
    const seesAll = org.visibleProjectIds == null;
    return {
      members: m,
      projects: p,
      teams: teams.map((t) => ({
        id: t.id,
        slug: t.slug,
        name: t.name,
        createdAt: t.createdAt,
        members: m.filter((x) => t.memberIds.includes(x.userId)).map((x) => ({ ...x, managed: managed.get(t.id)?.has(x.userId) ?? false })),
        projects: p.filter((x) => t.projectIds.includes(x.id)),
        forViewer: {
          access,
          isMember: t.memberIds.includes(viewer.userId),
          hasAccess: seesAll || t.memberIds.includes(viewer.userId),
          // Sentry's team role of a member: the least one their org role carries (no team roles here).
          teamRole: t.memberIds.includes(viewer.userId) ? (roleAtLeast(org.role, "admin") ? "admin" : "contributor") : null,
        },
      })),
    };
  }

  async function teamOf(org: OrgSummary, viewer: Viewer, teamSlug: string): Promise<TeamView> {
    const team = (await view(org, viewer)).teams.find((t) => t.slug === teamSlug);
    if (!team) throw new AppError("not_found", "Team not found.");
    return team;
  }

  return {
    async page(viewer, orgSlug) {
      const org = await admin(viewer, orgSlug, false);
      return { org, ...(await view(org, viewer)) };
    },

    async create(viewer, orgSlug, input) {
      const org = await admin(viewer, orgSlug, true);
      const v = validate(z.object({ name: nameSchema }), input);
      const slug = slugify(v.name);
      if (!slug)
        throw new AppError("validation_failed", "Use letters or digits in the name.", {
          fields: [{ field: "name", rule: "slug", message: "use letters or digits" }],
        });
      // Read before the write transaction (SQLite has one connection: no reads outside it meanwhile).
      const [members, projects] = await Promise.all([listMembers(db, org.id), listProjectsOfOrg(db, org.id)]);
      try {
        await writeTx(db, async (tx) => {
          const first = (await listTeams(tx, org.id)).length === 0;
          const id = await insertTeam(tx, { orgId: org.id, slug, name: v.name, now: now() });
          if (!first) return;
          // The first team takes everyone and everything: teams narrow visibility only when asked.
          for (const m of members) await setTeamMember(tx, id, m.userId, true);
          for (const p of projects) await setTeamProject(tx, id, p.id, true);
        });
      } catch (err) {
        if (isUniqueViolation(err))
          throw new AppError("conflict", `A team "${slug}" exists.`, {
            fields: [{ field: "name", rule: "unique", message: "already taken" }],
          });
        throw err;
      }
      return teamOf(org, viewer, slug);
    },

    async setMember(viewer, orgSlug, teamSlug, userId, on) {
      const org = await admin(viewer, orgSlug, true);
      const team = await teamOf(org, viewer, teamSlug);
      if (on && !(await listMembers(db, org.id)).some((m) => m.userId === userId)) throw new AppError("not_found", "Member not found.");
      await writeTx(db, async (tx) => {
        if (!on && (await isManagedTeamMember(tx, team.id, userId)))
          throw new AppError(
            "idp_managed",
            "This team membership comes from an identity-provider group: change the group there, or remove its mapping.",
          );
        await setTeamMember(tx, team.id, userId, on);
      });
      return teamOf(org, viewer, teamSlug);
    },

    async setProject(viewer, orgSlug, teamSlug, projectSlug, on) {
      const org = await admin(viewer, orgSlug, true);
      const team = await teamOf(org, viewer, teamSlug);
      const project = pickProjectByRef(await listProjectsOfOrg(db, org.id), projectSlug);
      if (!project) throw new AppError("not_found", "Project not found.");
      await writeTx(db, (tx) => setTeamProject(tx, team.id, project.id, on));
    },

    async remove(viewer, orgSlug, teamSlug) {
      const org = await admin(viewer, orgSlug, true);
      const team = await teamOf(org, viewer, teamSlug);
      await writeTx(db, (tx) => deleteTeam(tx, team.id));
    },
  };
}
