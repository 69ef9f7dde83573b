/**
 * services.issueRedirects: where an issue reference leads. A merged issue's id leads to the issue
 * that absorbed it (Sentry's GroupRedirect); a short id (`WEB-12`, the project slug upper-cased and
 * the project's counter) leads to its issue. Read by the issue page and the REST issue routes;
 * authorized like any issue read (event:read, the viewer's visible projects).
 */
import { AppError } from "../../core/errors";
import type { Db } from "../../storage/db";
import { issueByShortIdAlias } from "../../storage/import/sentry-import";
import { getIssue, getIssueByShortId } from "../../storage/issues/issues";
import { findIssueRedirect } from "../../storage/issues/redirects";
import type { ProjectRow } from "../../storage/orgs/projects";
import type { OrgSummary, Viewer } from "../types";

export interface IssueRedirects {
  /** The id of the issue that absorbed `issueId`, when the viewer may read it; else null. */
  target(viewer: Viewer, orgSlug: string, issueId: number): Promise<number | null>;
  /**
   * The numeric id an issue reference names: digits pass through (the read that follows checks
   * access), a short id is looked up in the projects the viewer may see; anything else not_found.
   */
  resolve(viewer: Viewer, orgSlug: string, ref: string): Promise<number>;
  /** The issue and project a short id names, when the viewer may read it; else null. */
  byShortId(viewer: Viewer, orgSlug: string, shortId: string): Promise<{ issueId: number; project: ProjectRow } | null>;
}

export interface IssueRedirectDeps {
  db: Db;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}

/** `WEB-12`, `my-app-3`: the slug part (may hold dashes) and the counter. */
export function parseShortId(ref: string): { slug: string; counter: number } | null {
  const m = /^([A-Za-z0-9][\w.-]*)-(\d{1,9})$/.exec(ref.trim());
  if (!m) return null;
  return { slug: (m[1] as string).toLowerCase(), counter: Number(m[2]) };
}

export function createIssueRedirects(deps: IssueRedirectDeps): IssueRedirects {
  const { db, membershipOrThrow, requireScope, projectsOf } = deps;

  async function byShortId(viewer: Viewer, orgSlug: string, shortId: string) {
    requireScope(viewer, "event:read");
    const org = await membershipOrThrow(viewer, orgSlug);
    const parsed = parseShortId(shortId);
    if (!parsed) return byAlias(org, shortId);
    const project = [...(await projectsOf(org)).values()].find((p) => p.slug.toLowerCase() === parsed.slug);
    const issue = project ? await getIssueByShortId(db, project.id, parsed.counter) : undefined;
    return project && issue ? { issueId: issue.id, project } : null;
  }

  /** A Sentry short id in base 32 (`SHOP-API-1A`) that an import could not keep: the issue it became. */
  async function byAlias(org: OrgSummary, shortId: string) {
    const m = /^([A-Za-z0-9][\w.-]*)-([0-9A-Za-z]{1,13})$/.exec(shortId.trim());
    const project = m ? [...(await projectsOf(org)).values()].find((p) => p.slug.toLowerCase() === m[1]?.toLowerCase()) : undefined;
    if (!m || !project) return null;
    const issueId = await issueByShortIdAlias(db.kysely, org.id, project.slug, m[2] as string);
    return issueId !== undefined ? { issueId, project } : null;
  }

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

    async resolve(viewer, orgSlug, ref) {
      if (/^\d{1,15}$/.test(ref)) return Number(ref);
      const found = await byShortId(viewer, orgSlug, ref);
      if (!found) throw new AppError("not_found", "Issue not found.");
      return found.issueId;
    },

    byShortId,
  };
}
