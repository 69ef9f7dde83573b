/**
 * Who may see what: the one place a viewer's membership, token scopes and visible projects are
 * resolved. Every service takes these functions instead of querying memberships itself, so the
 * rules (same answer for "no such org" and "not a member", organization tokens bound to their
 * organization and acting within their creator's current role, members narrowed to their teams'
 * projects) hold everywhere.
 *
 * For a new feature whose objects belong to projects (replays, traces, …): `projectMap(org)` is
 * "the projects the viewer may see", `projectOrThrow` one of them by slug or id, and
 * visibility.ts's `requireAllProjectsVisible` / `requireSomeProjectVisible` decide on an object
 * that spans several (act only when all are visible, read when one is; otherwise not found).
 * test/security/team-matrix.test.ts checks every route and server action against these rules.
 */
import type { Config } from "../../config";
import { formatDsn } from "../../core/dsn";
import { AppError } from "../../core/errors";
import { expandScopes } from "../../core/token-scopes";
import type { Db } from "../../storage/db";
import { getIssue } from "../../storage/issues/issues";
import { visibleProjectIds } from "../../storage/members/project-visibility";
import { findMembership } from "../../storage/orgs/orgs";
import { findProjectByRef, listKeys, listProjectsOfOrg, type ProjectRow } from "../../storage/orgs/projects";
import type { OrgSummary, ProjectSummary, Viewer } from "../types";
import { type Action, type Credential, denial } from "./permissions";
import { canSeeProject, visibleProjects } from "./visibility";

/** The credential a viewer acts with: session, personal token or organization token. */
export function credentialOf(viewer: Viewer): Credential {
  if (!viewer.scopes) return { kind: "session" };
  return viewer.tokenOrgId != null ? { kind: "org-token", scopes: viewer.scopes } : { kind: "user-token", scopes: viewer.scopes };
}

/** Throws `forbidden` unless the viewer, in this org, may do `action` (the permission table decides). */
export function requirePermission(viewer: Viewer, org: OrgSummary, action: Action): void {
  const why = denial(org.role, credentialOf(viewer), action);
  if (why) throw new AppError("forbidden", why);
}

export interface Access {
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  /** The membership, when the viewer may do `action` there (src/server/access/permissions.ts); else not_found or forbidden. */
  authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  /**
   * The org and one of its projects, when the viewer may do `action` there (checked before any
   * lookup) and sees the project; else forbidden or not_found. By slug, else by the project's
   * numeric id in the org (Sentry's `project_id_or_slug`, core/project-ref.ts).
   */
  projectOrThrow(viewer: Viewer, orgSlug: string, projectRef: string, action: Action): Promise<{ org: OrgSummary; project: ProjectRow }>;
  /** The org's projects the viewer may see, by id: "projects the viewer may see" for every service. */
  projectMap(org: OrgSummary): Promise<Map<number, ProjectRow>>;
  projectSummary(p: ProjectRow): Promise<ProjectSummary>;
  /** The issue, when it is in a project of the org the viewer may see; else not_found. */
  issueInOrg(
    viewer: Viewer,
    orgSlug: string,
    issueId: number,
  ): Promise<{ org: OrgSummary; issue: NonNullable<Awaited<ReturnType<typeof getIssue>>>; projects: Map<number, ProjectRow> }>;
}

export function createAccess(db: Db, config: Config): Access {
  async function membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary> {
    const found = await findMembership(db, viewer.userId, orgSlug);
    // An organization token works in its organization only.
    const m = found && (viewer.tokenOrgId == null || viewer.tokenOrgId === found.id) ? found : undefined;
    // Same answer for "no such org" and "not a member": never reveal another tenant's existence.
    if (!m) throw new AppError("not_found", "Organization not found.");
    // Members and viewers are narrowed to their teams' projects (storage/members/project-visibility.ts).
    const visible = await visibleProjectIds(db, m.id, viewer.userId, m.role);
    return { id: m.id, slug: m.slug, name: m.name, role: m.role, createdAt: m.createdAt, visibleProjectIds: visible };
  }

  async function authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary> {
    const org = await membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, action);
    return org;
  }

  function requireScope(viewer: Viewer, scope: string): void {
    if (viewer.scopes && !expandScopes(viewer.scopes).includes(scope))
      throw new AppError("forbidden", `This token lacks the "${scope}" scope.`);
  }

  /** Sentry's `project_id_or_slug` (core/project-ref.ts): the slug, else the project's id in this org. */
  async function projectOrThrow(viewer: Viewer, orgSlug: string, projectRef: string, action: Action) {
    const org = await authorize(viewer, orgSlug, action);
    const project = await findProjectByRef(db, org.id, projectRef);
    // A member outside the project's teams learns nothing of it, not even that it exists.
    if (!project || !canSeeProject(org, project.id)) throw new AppError("not_found", "Project not found.");
    return { org, project };
  }

  async function projectSummary(p: ProjectRow): Promise<ProjectSummary> {
    const key = (await listKeys(db, p.id)).find((k) => k.active);
    return {
      id: p.id,
      slug: p.slug,
      name: p.name,
      platform: p.platform,
      createdAt: p.createdAt,
      dsn: key ? formatDsn(config.publicIngestUrl, key.publicKey, key.dsnProjectId ?? p.id) : null,
    };
  }

  async function projectMap(org: OrgSummary): Promise<Map<number, ProjectRow>> {
    return new Map(visibleProjects(org, await listProjectsOfOrg(db, org.id)).map((p) => [p.id, p]));
  }

  async function issueInOrg(viewer: Viewer, orgSlug: string, issueId: number) {
    const org = await membershipOrThrow(viewer, orgSlug);
    const issue = Number.isSafeInteger(issueId) ? await getIssue(db, issueId) : undefined;
    const projects = await projectMap(org);
    if (!issue || !projects.has(issue.projectId)) throw new AppError("not_found", "Issue not found.");
    return { org, issue, projects };
  }

  return { membershipOrThrow, authorize, requireScope, projectOrThrow, projectMap, projectSummary, issueInOrg };
}
