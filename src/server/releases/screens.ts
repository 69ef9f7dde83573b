/**
 * The releases screens: the organization's releases with their new issues, crash-free sessions
 * (release health) and artifacts, and one release in full (new issues, regressions, sessions per
 * day, uploaded artifacts). Every member reads them (SPEC §6); tokens need `project:read` or
 * `project:releases`.
 */
import { AppError } from "../../core/errors";
import { crashFreeRate } from "../../core/sessions";
import type { Db } from "../../storage/db";
import type { IssueRow } from "../../storage/issues/issues";
import type { ProjectRow } from "../../storage/orgs/projects";
import {
  listReleases,
  newIssuesInRelease,
  type ReleaseCounts,
  type ReleaseListRow,
  regressionsInRelease,
  releaseArtifacts,
  releaseCounts,
  releaseSessionDays,
  type SessionDay,
  type SessionTotals,
} from "../../storage/releases/reads";
import { requirePermission } from "../access/access";
import { seesSomeProject, visibleProjectIdsOf } from "../access/visibility";
import type { IssueSummary, OrgSummary, Page, Viewer } from "../types";

export type { SessionDay, SessionTotals } from "../../storage/releases/reads";

export interface ReleaseSummary {
  version: string;
  /** when Errata first learnt of the release */
  createdAt: number;
  /** projects it was seen in, earliest first */
  projects: Array<{ slug: string; firstSeen: number }>;
  newIssues: number;
  /** null: no session data for it (the SDK sends none, or autoSessionTracking is off) */
  sessions: SessionTotals | null;
  /** share of sessions that did not crash, 0–1; null without sessions */
  crashFreeSessions: number | null;
  /** distinct users with sessions; null without session data */
  users: number | null;
  /** share of those users none of whose sessions crashed, 0–1; null without users */
  crashFreeUsers: number | null;
  artifacts: { bundles: number; files: number };
}

export interface ReleaseArtifactView {
  kind: "bundle" | "file";
  /** "Bundle <id>", or a release file's URL */
  name: string;
  dist: string;
  files: number;
  size: number;
  createdAt: number;
  /** projects a bundle was uploaded for (empty: every project of the organization) */
  projects: string[];
}

export interface ReleaseDetail extends ReleaseSummary {
  newIssueList: IssueSummary[];
  regressions: Array<{ issue: IssueSummary; at: number }>;
  /** sessions per UTC day, the last 30 days (days without sessions left out) */
  sessionDays: SessionDay[];
  artifactList: ReleaseArtifactView[];
}

export interface ReleaseServices {
  /** Newest first, by cursor; `project` keeps the releases seen in that project. */
  list(viewer: Viewer, orgSlug: string, q?: { project?: string; cursor?: string | null; limit?: number }): Promise<Page<ReleaseSummary>>;
  /** One release; not_found when the organization has no release of that version. */
  get(viewer: Viewer, orgSlug: string, version: string): Promise<ReleaseDetail>;
}

export interface ReleaseServiceDeps {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  /** the org's projects this viewer may see (teams) */
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
  toSummary(row: IssueRow, projects: Map<number, ProjectRow>): IssueSummary;
}

const DAY_MS = 86_400_000;
const DETAIL_LIMIT = 100;

export function encodeReleaseCursor(c: { createdAt: number; id: number }): string {
  return Buffer.from(`${c.createdAt}:${c.id}`).toString("base64url");
}

function decodeCursor(cursor: string | null | undefined): { createdAt: number; id: number } | null {
  if (!cursor) return null;
  const m = Buffer.from(cursor, "base64url")
    .toString()
    .match(/^(\d+):(\d+)$/);
  if (!m)
    throw new AppError("validation_failed", "Invalid cursor.", {
      fields: [{ field: "cursor", rule: "format", message: "not a cursor from this page" }],
    });
  return { createdAt: Number(m[1]), id: Number(m[2]) };
}

/** Crash-free share as Sentry defines it: sessions that did not end crashed (src/core/sessions.ts). */
export { crashFreeRate };

export function crashFreeUserRate(users: number | null, crashed: number | null): number | null {
  if (!users || users <= 0) return null;
  return Math.max(0, Math.min(1, (users - (crashed ?? 0)) / users));
}

export function createReleaseServices(deps: ReleaseServiceDeps): ReleaseServices {
  const { db, now, membershipOrThrow, projectsOf, toSummary } = deps;

  async function context(viewer: Viewer, orgSlug: string) {
    const org = await membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, "release.read");
    const projects = await projectsOf(org);
    return { org, projects, projectIds: [...projects.keys()] };
  }

  function summary(r: ReleaseListRow, c: ReleaseCounts | undefined, projects: Map<number, ProjectRow>): ReleaseSummary {
    const counts = c ?? { newIssues: 0, sessions: null, users: null, crashedUsers: null, bundles: 0, files: 0 };
    return {
      version: r.version,
      createdAt: r.createdAt,
      projects: r.projects.flatMap((p) => {
        const slug = projects.get(p.projectId)?.slug;
        return slug ? [{ slug, firstSeen: p.firstSeen }] : [];
      }),
      newIssues: counts.newIssues,
      sessions: counts.sessions,
      crashFreeSessions: crashFreeRate(counts.sessions),
      users: counts.users,
      crashFreeUsers: crashFreeUserRate(counts.users, counts.crashedUsers),
      artifacts: { bundles: counts.bundles, files: counts.files },
    };
  }

  return {
    async list(viewer, orgSlug, q = {}) {
      const { org, projects, projectIds } = await context(viewer, orgSlug);
      let onlyProjectId: number | undefined;
      if (q.project) {
        const p = [...projects.values()].find((x) => x.slug === q.project);
        if (!p) throw new AppError("not_found", "Project not found.");
        onlyProjectId = p.id;
      }
      const limit = Math.max(1, Math.min(q.limit ?? 50, 100));
      // Team visibility's read rule (access/visibility.ts): releases of a project the viewer sees, or of none.
      const seenBy = visibleProjectIdsOf(org);
      const rows = await listReleases(db, {
        orgId: org.id,
        projectIds,
        seenBy,
        cursor: decodeCursor(q.cursor),
        limit: limit + 1,
        onlyProjectId,
      });
      const page = rows.slice(0, limit);
      const counts = await releaseCounts(db, { orgId: org.id, projectIds, versions: page.map((r) => r.version) });
      const last = page.at(-1);
      return {
        items: page.map((r) => summary(r, counts.get(r.version), projects)),
        nextCursor: rows.length > limit && last ? encodeReleaseCursor(last) : null,
      };
    },

    async get(viewer, orgSlug, version) {
      const { org, projects, projectIds } = await context(viewer, orgSlug);
      if (typeof version !== "string" || version.length === 0 || version.length > 250)
        throw new AppError("not_found", "Release not found.");
      const [row] = await listReleases(db, { orgId: org.id, projectIds, seenBy: visibleProjectIdsOf(org), limit: 1, version });
      if (!row) throw new AppError("not_found", "Release not found.");
      const to = now();
      const [counts, fresh, regressed, days, artifacts] = await Promise.all([
        releaseCounts(db, { orgId: org.id, projectIds, versions: [version] }),
        newIssuesInRelease(db, { projectIds, version, limit: DETAIL_LIMIT }),
        regressionsInRelease(db, { projectIds, version, limit: DETAIL_LIMIT }),
        releaseSessionDays(db, { projectIds, version, from: Math.floor(to / DAY_MS) * DAY_MS - 29 * DAY_MS, to: to + 3_600_000 }),
        releaseArtifacts(db, { orgId: org.id, version, limit: DETAIL_LIMIT }),
      ]);
      return {
        ...summary(row, counts.get(version), projects),
        newIssueList: fresh.map((i) => toSummary(i, projects)),
        regressions: regressed.map((r) => ({ issue: toSummary(r.issue, projects), at: r.at })),
        sessionDays: days,
        // Bundles uploaded for projects the viewer cannot see are not theirs to list.
        artifactList: artifacts
          .filter((a) => a.bundleId === null || seesSomeProject(org, a.projectIds))
          .map((a) => ({
            kind: a.bundleId === null ? "file" : "bundle",
            name: a.bundleId === null ? a.name : `Bundle ${a.bundleId}`,
            dist: a.dist,
            files: a.files,
            size: a.size,
            createdAt: a.createdAt,
            projects: a.projectIds.flatMap((id) => {
              const slug = projects.get(id)?.slug;
              return slug ? [slug] : [];
            }),
          })),
      };
    },
  };
}
