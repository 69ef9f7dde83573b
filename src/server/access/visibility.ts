/**
 * Team visibility (SPEC §6): members and viewers see the projects of their teams, admins and owners
 * all. `OrgSummary.visibleProjectIds` carries the answer from the membership lookup, defined in
 * storage/members/project-visibility.ts (which also answers who alerts and the weekly summary may
 * reach); these helpers are the one way services apply it.
 *
 * Objects that belong to projects — a release (with its deploys, commits and files), a monitor, an
 * alert rule or channel, a CODEOWNERS file, an event, a replay, a trace — follow two rules, the
 * same for every service (new ones included: call these, never compare ids by hand):
 *
 *  - act on one (change, delete, add to it) only when the viewer sees EVERY project it belongs to,
 *    as Sentry requires `project:releases` on each project of a release: `requireAllProjectsVisible`;
 *  - read one when the viewer sees at least one of its projects, showing only those:
 *    `requireSomeProjectVisible`, then `visibleProjectIdsAmong` for what to show.
 *
 * Either way an object the viewer may not reach is "not found", the same answer as for one that
 * does not exist, so its existence is not revealed. An object of no project (a release made without
 * projects) is the organization's: everyone in it reaches it.
 */
import { AppError } from "../../core/errors";
import type { OrgSummary } from "../types";

export function canSeeProject(org: OrgSummary, projectId: number): boolean {
  return !org.visibleProjectIds || org.visibleProjectIds.includes(projectId);
}

export function visibleProjects<T extends { id: number }>(org: OrgSummary, projects: T[]): T[] {
  return org.visibleProjectIds ? projects.filter((p) => canSeeProject(org, p.id)) : projects;
}

/** The ids of the projects the viewer may see, or null when they see all of the organization's. */
export function visibleProjectIdsOf(org: OrgSummary): readonly number[] | null {
  return org.visibleProjectIds ?? null;
}

/** The viewer may act on an object of these projects: they see every one (none: the organization's). */
export function seesAllProjects(org: OrgSummary, projectIds: Iterable<number>): boolean {
  for (const id of projectIds) if (!canSeeProject(org, id)) return false;
  return true;
}

/** The viewer may read an object of these projects: they see one of them at least (none: the organization's). */
export function seesSomeProject(org: OrgSummary, projectIds: readonly number[]): boolean {
  return projectIds.length === 0 || projectIds.some((id) => canSeeProject(org, id));
}

/** Of an object's projects, those the viewer sees (what a read shows). */
export function visibleProjectIdsAmong(org: OrgSummary, projectIds: readonly number[]): number[] {
  return projectIds.filter((id) => canSeeProject(org, id));
}

/** `not_found` (saying `notFound`) unless the viewer sees every one of the object's projects. */
export function requireAllProjectsVisible(org: OrgSummary, projectIds: Iterable<number>, notFound: string): void {
  if (!seesAllProjects(org, projectIds)) throw new AppError("not_found", notFound);
}

/** `not_found` (saying `notFound`) unless the viewer sees one of the object's projects at least. */
export function requireSomeProjectVisible(org: OrgSummary, projectIds: readonly number[], notFound: string): void {
  if (!seesSomeProject(org, projectIds)) throw new AppError("not_found", notFound);
}
