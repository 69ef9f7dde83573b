/**
 * Team visibility (SPEC §6): members and viewers see the projects of their teams, admins and owners
 * all. `OrgSummary.visibleProjectIds` carries the answer from the membership lookup, defined in
 * storage/members/project-visibility.ts (which also answers who alerts and the weekly summary may
 * reach); these helpers are the one way services apply it.
 */
import type { OrgSummary } from "../types";

export function canSeeProject(org: OrgSummary, projectId: number): boolean {
  return !org.visibleProjectIds || org.visibleProjectIds.includes(projectId);
}

export function visibleProjects<T extends { id: number }>(org: OrgSummary, projects: T[]): T[] {
  return org.visibleProjectIds ? projects.filter((p) => canSeeProject(org, p.id)) : projects;
}
