/**
 * services.issueRedirects: where a merged issue went (Sentry's GroupRedirect). Read by the issue
 * page and the REST issue routes when an id is not found; authorized like any issue read.
 */
import type { Db } from "../../storage/db";
import { getIssue } from "../../storage/issues/issues";
import { findIssueRedirect } from "../../storage/issues/redirects";
import type { ProjectRow } from "../../storage/orgs/projects";
import type { OrgSummary, Viewer } from "../types";

export interface IssueRedirects {
  /** The id of the issue that absorbed `issueId`, when the viewer may read it; else null. */
  target(viewer: Viewer, orgSlug: string, issueId: number): Promise<number | null>;
}

export interface IssueRedirectDeps {
  db: Db;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}

export function createIssueRedirects(deps: IssueRedirectDeps): IssueRedirects {
  const { db, membershipOrThrow, requireScope, projectsOf } = deps;
  return {
    async target(viewer, orgSlug, issueId) {
      if (!Number.isSafeInteger(issueId)) return null;
      requireScope(viewer, "event:read");
      const org = await membershipOrThrow(viewer, orgSlug);
      const r = await findIssueRedirect(db, issueId);
      if (!r) return null;
      const projects = await projectsOf(org);
      const target = await getIssue(db, r.targetId);
      return target && projects.has(target.projectId) ? target.id : null;
    },
  };
}
