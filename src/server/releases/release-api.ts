/**
 * Sentry's releases REST API as sentry-cli, `getsentry/action-release` and the bundler plugins use
 * it (issue 10): list (org and project, `?query=`), detail, create, update (finalize, ref, url,
 * commits, refs, archive), delete, deploys, and `previous-with-commits`. Answers in Sentry's release
 * serializer shape. Who may: `release.read`, `release.write` and `release.delete` in the permission
 * table (members and above write releases, as in Sentry: CI runs with a developer's or an
 * organization token), and team visibility (access/visibility.ts): a release is read when the
 * viewer sees one of its projects (showing those), changed only when they see all of them.
 */

import { z } from "zod";
import { AppError } from "../../core/errors";
import { pickProjectByRef } from "../../core/project-ref";
import { validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import type { ProjectRow } from "../../storage/orgs/projects";
import { ensureRelease } from "../../storage/releases/artifacts";
import {
  type CommitStats,
  commitStats,
  type Deploy,
  deleteReleaseRows,
  deployStats,
  findReleaseProjects,
  insertDeploy,
  lastEventByVersion,
  listCommits,
  listDeploys,
  newIssuesByVersion,
  patchReleaseMeta,
  previousReleaseWithCommits,
  type ReleaseCommit,
  type ReleaseMeta,
  type ReleasePageRow,
  releaseMetas,
  replaceCommits,
  searchReleases,
} from "../../storage/releases/meta";
import { requirePermission } from "../access/access";
import { requireAllProjectsVisible, visibleProjectIdsOf } from "../access/visibility";
import type { OrgSummary, Page, Viewer } from "../types";

export type SentryRelease = ReturnType<typeof releaseJson>;
export type SentryDeploy = ReturnType<typeof deployJson>;

export interface ReleaseExtras {
  commits: ReleaseCommit[];
  deploys: Deploy[];
  meta: ReleaseMeta | null;
}

export interface ReleaseApiServices {
  list(
    viewer: Viewer,
    orgSlug: string,
    q: { project?: string; query?: string | null; cursor?: string | null; limit?: number },
  ): Promise<Page<SentryRelease>>;
  get(viewer: Viewer, orgSlug: string, version: string): Promise<SentryRelease>;
  /** POST …/releases/: 201 when new, else 208 (Sentry); extra fields (dateStarted, refs, status…) applied. */
  create(viewer: Viewer, orgSlug: string, body: unknown, projectSlug?: string): Promise<{ created: boolean; release: SentryRelease }>;
  update(viewer: Viewer, orgSlug: string, version: string, body: unknown): Promise<SentryRelease>;
  delete(viewer: Viewer, orgSlug: string, version: string): Promise<void>;
  /** The newest older release with commits, or null (Sentry answers `{}`). */
  previousWithCommits(viewer: Viewer, orgSlug: string, version: string): Promise<SentryRelease | null>;
  commits(viewer: Viewer, orgSlug: string, version: string): Promise<ReturnType<typeof commitJson>[]>;
  createDeploy(viewer: Viewer, orgSlug: string, version: string, body: unknown): Promise<SentryDeploy>;
  listDeploys(viewer: Viewer, orgSlug: string, version: string): Promise<SentryDeploy[]>;
  /** For the release page: commits and deploys (newest first, bounded). */
  extras(viewer: Viewer, orgSlug: string, version: string): Promise<ReleaseExtras>;
}

export interface ReleaseApiDeps {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}

const MAX_COMMITS = 10_000;
const LIST_LIMIT = 100;

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** An ISO date as Sentry accepts (sentry-cli sends nanoseconds), null, or absent. */
const dateField = z
  .union([z.string().max(64), z.null()])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === null) return v;
    const t = Date.parse(v);
    if (Number.isNaN(t)) {
      ctx.addIssue({ code: "custom", message: "not an ISO date" });
      return z.NEVER;
    }
    return t;
  });

const text = (max: number) => z.string().max(max).nullable().optional();

/** Files one commit may name (`patch_set`); a longer list is refused whole, with the commit's index. */
export const MAX_COMMIT_FILES = 10_000;
/** Files of all a release's commits together. */
const MAX_RELEASE_FILES = 50_000;

const patchSchema = z.object({
  path: z.string().trim().min(1).max(1000),
  type: z.enum(["A", "M", "D"]).optional(),
});

const commitSchema = z.object({
  id: z.string().min(1).max(64),
  patch_set: z
    .array(patchSchema)
    .max(MAX_COMMIT_FILES, `at most ${MAX_COMMIT_FILES.toLocaleString("en")} files per commit`)
    .nullable()
    .optional(),
  repository: z.string().max(200).nullable().optional(),
  message: z.string().max(100_000).nullable().optional(),
  author_name: z.string().max(200).nullable().optional(),
  author_email: z.string().max(320).nullable().optional(),
  timestamp: dateField,
});

const refSchema = z.object({
  repository: z.string().min(1).max(200),
  commit: z.string().min(1).max(64),
  previousCommit: z.string().max(64).nullable().optional(),
});

// Sentry's release body; unknown keys (owner, headCommits…) are ignored; a commit's `patch_set` is kept (suspect commits).
const releaseFields = {
  ref: text(250),
  url: text(2000),
  dateStarted: dateField,
  dateReleased: dateField,
  status: z.enum(["open", "archived"]).optional(),
  projects: z.array(z.string().max(200)).max(1000).optional(),
  commits: z
    .array(commitSchema)
    .max(MAX_COMMITS)
    .refine((list) => list.reduce((n, c) => n + (c.patch_set?.length ?? 0), 0) <= MAX_RELEASE_FILES, {
      message: `at most ${MAX_RELEASE_FILES.toLocaleString("en")} changed files across a release's commits`,
    })
    .optional(),
  refs: z.array(refSchema).max(1000).optional(),
};
const updateSchema = z.object(releaseFields);
const createSchema = z.object({ version: z.string().trim().min(1).max(250), ...releaseFields });

const deploySchema = z.object({
  environment: z.string().trim().min(1).max(64),
  name: text(64),
  url: text(2000),
  dateStarted: dateField,
  dateFinished: dateField,
});

function encodeCursor(r: { createdAt: number; id: number }): string {
  return Buffer.from(`${r.createdAt}:${r.id}`).toString("base64url");
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

function commitJson(c: ReleaseCommit) {
  return {
    id: c.id,
    message: c.message,
    dateCreated: iso(c.timestamp),
    repository: { name: c.repository },
    previousCommit: c.previousCommit,
    author: c.authorEmail || c.authorName ? { name: c.authorName, email: c.authorEmail } : null,
    // Errata keeps no pull requests (no repository integration); "" is Sentry's type of a commit that is no suspect.
    pullRequest: null,
    suspectCommitType: "",
  };
}

function deployJson(d: Deploy) {
  return {
    id: String(d.id),
    environment: d.environment,
    name: d.name,
    url: d.url,
    dateStarted: iso(d.dateStarted),
    dateFinished: iso(d.dateFinished),
  };
}

interface ReleaseFacts {
  meta: ReleaseMeta | undefined;
  commits: CommitStats | undefined;
  deploys: { count: number; last: Deploy } | undefined;
  newGroups: Map<number, number> | undefined;
  lastEvent: number | undefined;
}

function releaseJson(row: ReleasePageRow, f: ReleaseFacts, projects: Map<number, ProjectRow>) {
  const newGroups = [...(f.newGroups?.values() ?? [])].reduce((a, b) => a + b, 0);
  const shortVersion = row.version.length > 12 && /^[0-9a-f]+$/.test(row.version) ? row.version.slice(0, 12) : row.version;
  return {
    id: row.id,
    version: row.version,
    shortVersion,
    status: f.meta?.status ?? "open",
    ref: f.meta?.ref ?? null,
    url: f.meta?.url ?? null,
    dateCreated: iso(row.createdAt) as string,
    dateStarted: iso(f.meta?.dateStarted),
    dateReleased: iso(f.meta?.dateReleased),
    data: {},
    owner: null,
    newGroups,
    commitCount: f.commits?.count ?? 0,
    lastCommit: f.commits?.last ? commitJson(f.commits.last) : null,
    authors: f.commits?.authors ?? [],
    deployCount: f.deploys?.count ?? 0,
    lastDeploy: f.deploys ? deployJson(f.deploys.last) : null,
    // firstEvent: when the release was first seen in a project (for a release a client created
    // before any event, its creation); only given once an event named it.
    firstEvent: f.lastEvent !== undefined ? iso(row.firstSeen ?? row.createdAt) : null,
    lastEvent: iso(f.lastEvent),
    projects: row.projectIds.flatMap((id) => {
      const p = projects.get(id);
      if (!p) return [];
      return [
        {
          id: p.id,
          slug: p.slug,
          name: p.name,
          platform: p.platform,
          platforms: [p.platform],
          newGroups: f.newGroups?.get(id) ?? 0,
          hasHealthData: false,
        },
      ];
    }),
    versionInfo: { package: null, version: { raw: row.version }, description: row.version, buildHash: null },
  };
}

export function createReleaseApi(deps: ReleaseApiDeps): ReleaseApiServices {
  const { db, now } = deps;

  async function reader(viewer: Viewer, orgSlug: string, action: "release.read" | "release.write" | "release.delete" = "release.read") {
    const org = await deps.membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, action);
    const projects = await deps.projectsOf(org);
    return { org, projects, projectIds: [...projects.keys()] };
  }

  const writer = (viewer: Viewer, orgSlug: string) => reader(viewer, orgSlug, "release.write");

  function projectIdsOf(projects: Map<number, ProjectRow>, slugs: string[]): number[] {
    const bySlug = new Map([...projects.values()].map((p) => [p.slug, p.id]));
    const unknown = slugs.filter((s) => !bySlug.has(s));
    if (unknown.length > 0)
      throw new AppError("validation_failed", `Unknown project(s): ${unknown.join(", ")}.`, {
        fields: [{ field: "projects", rule: "exists", message: "unknown project" }],
      });
    return [...new Set(slugs.map((s) => bySlug.get(s) as number))];
  }

  async function shape(rows: ReleasePageRow[], projects: Map<number, ProjectRow>, projectIds: number[]): Promise<SentryRelease[]> {
    const ids = rows.map((r) => r.id);
    const versions = rows.map((r) => r.version);
    const [metas, commits, deploys, fresh, last] = await Promise.all([
      releaseMetas(db, ids),
      commitStats(db, ids),
      deployStats(db, ids),
      newIssuesByVersion(db, projectIds, versions),
      lastEventByVersion(db, projectIds, versions),
    ]);
    return rows.map((r) =>
      releaseJson(
        r,
        {
          meta: metas.get(r.id),
          commits: commits.get(r.id),
          deploys: deploys.get(r.id),
          newGroups: fresh.get(r.version),
          lastEvent: last.get(r.version),
        },
        projects,
      ),
    );
  }

  /** A release the viewer may read: of no project or of one they see (showing only those). */
  async function findRow(ctx: { org: OrgSummary; projectIds: number[] }, version: string): Promise<ReleasePageRow> {
    if (typeof version !== "string" || version.length === 0 || version.length > 250) throw new AppError("not_found", "Release not found.");
    const [row] = await searchReleases(db, {
      orgId: ctx.org.id,
      projectIds: ctx.projectIds,
      seenBy: visibleProjectIdsOf(ctx.org),
      version,
      limit: 1,
    });
    if (!row) throw new AppError("not_found", "Release not found.");
    return row;
  }

  /** A release the viewer may change: they see every project it belongs to (Sentry's project:releases on each). */
  async function findWritable(ctx: { org: OrgSummary; projectIds: number[] }, version: string): Promise<ReleasePageRow> {
    const row = await findRow(ctx, version);
    const all = await findReleaseProjects(db, ctx.org.id, version);
    requireAllProjectsVisible(ctx.org, all?.projectIds ?? [], "Release not found.");
    return row;
  }

  type Body = z.infer<typeof updateSchema>;

  /** Applies a create/update body's fields to an existing release, in one transaction. */
  async function apply(releaseId: number, body: Body, projectIds: number[], at: number): Promise<void> {
    await writeTx(db, async (tx) => {
      if (projectIds.length > 0)
        await tx
          .insertInto("release_projects")
          .values(projectIds.map((p) => ({ project_id: p, release_id: releaseId, first_seen: at })))
          .onConflict((oc) => oc.columns(["project_id", "release_id"]).doNothing())
          .execute();
      const patch: Partial<ReleaseMeta> = {
        ref: body.ref,
        url: body.url,
        dateStarted: body.dateStarted,
        dateReleased: body.dateReleased,
        status: body.status,
      };
      if (Object.values(patch).some((v) => v !== undefined)) await patchReleaseMeta(tx, releaseId, patch);
      // Explicit commits win over refs (Sentry resolves refs through a repository integration,
      // which Errata does not have: the refs themselves are stored as sent).
      if (body.commits !== undefined) {
        await replaceCommits(
          tx,
          releaseId,
          body.commits.map((c) => ({
            repository: c.repository ?? "",
            id: c.id,
            previousCommit: null,
            authorName: c.author_name ?? null,
            authorEmail: c.author_email ?? null,
            message: c.message ?? null,
            timestamp: c.timestamp ?? null,
            files: (c.patch_set ?? []).map((f) => ({ path: f.path, type: f.type ?? "M" })),
          })),
        );
      } else if (body.refs !== undefined) {
        await replaceCommits(
          tx,
          releaseId,
          body.refs.map((r) => ({
            repository: r.repository,
            id: r.commit,
            previousCommit: r.previousCommit ?? null,
            authorName: null,
            authorEmail: null,
            message: null,
            timestamp: null,
          })),
        );
      }
    });
  }

  return {
    async list(viewer, orgSlug, q) {
      const ctx = await reader(viewer, orgSlug);
      let onlyProjectId: number | undefined;
      if (q.project) {
        // Sentry's project_id_or_slug: the org endpoint sends ids, the project one slugs or ids.
        const p = pickProjectByRef(ctx.projects.values(), q.project);
        if (!p) throw new AppError("not_found", "Project not found.");
        onlyProjectId = p.id;
      }
      const limit = Math.max(1, Math.min(q.limit ?? LIST_LIMIT, LIST_LIMIT));
      const rows = await searchReleases(db, {
        orgId: ctx.org.id,
        projectIds: ctx.projectIds,
        seenBy: visibleProjectIdsOf(ctx.org),
        onlyProjectId,
        query: q.query?.trim().slice(0, 250) || undefined,
        cursor: decodeCursor(q.cursor),
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: await shape(page, ctx.projects, ctx.projectIds),
        nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
      };
    },

    async get(viewer, orgSlug, version) {
      const ctx = await reader(viewer, orgSlug);
      const [release] = await shape([await findRow(ctx, version)], ctx.projects, ctx.projectIds);
      return release as SentryRelease;
    },

    async create(viewer, orgSlug, input, projectSlug) {
      const ctx = await writer(viewer, orgSlug);
      // The path's project (slug or id) is a resource like any other: one the viewer cannot see is
      // not found, before the body is read. The body's `projects` are slugs, as in Sentry.
      const pathProject = projectSlug ? pickProjectByRef(ctx.projects.values(), projectSlug) : undefined;
      if (projectSlug && !pathProject) throw new AppError("not_found", "Project not found.");
      const pathSlug = pathProject?.slug;
      const body = validate(createSchema, input);
      // An existing version is added to only by who sees all of its projects (else, as for any
      // release they cannot reach: not found).
      const existing = await findReleaseProjects(db, ctx.org.id, body.version);
      if (existing) requireAllProjectsVisible(ctx.org, existing.projectIds, "Release not found.");
      const projectIds = projectIdsOf(ctx.projects, [...(body.projects ?? []), ...(pathSlug ? [pathSlug] : [])]);
      const at = now();
      const made = await writeTx(db, (tx) => ensureRelease(tx, { orgId: ctx.org.id, version: body.version, projectIds, now: at }));
      await apply(made.id, body, [], at);
      const [release] = await shape([await findRow(ctx, body.version)], ctx.projects, ctx.projectIds);
      return { created: made.createdAt === at, release: release as SentryRelease };
    },

    async update(viewer, orgSlug, version, input) {
      const ctx = await writer(viewer, orgSlug);
      const row = await findWritable(ctx, version);
      const body = validate(updateSchema, input);
      const projectIds = projectIdsOf(ctx.projects, body.projects ?? []);
      await apply(row.id, body, projectIds, now());
      const [release] = await shape([await findRow(ctx, version)], ctx.projects, ctx.projectIds);
      return release as SentryRelease;
    },

    async delete(viewer, orgSlug, version) {
      const ctx = await reader(viewer, orgSlug, "release.delete");
      const row = await findWritable(ctx, version);
      await writeTx(db, (tx) => deleteReleaseRows(tx, row.id));
    },

    async previousWithCommits(viewer, orgSlug, version) {
      const ctx = await reader(viewer, orgSlug);
      const row = await findRow(ctx, version);
      const prev = await previousReleaseWithCommits(db, ctx.org.id, row, visibleProjectIdsOf(ctx.org));
      if (!prev) return null;
      const [release] = await shape([await findRow(ctx, prev.version)], ctx.projects, ctx.projectIds);
      return release ?? null;
    },

    async commits(viewer, orgSlug, version) {
      const ctx = await reader(viewer, orgSlug);
      const row = await findRow(ctx, version);
      return (await listCommits(db, row.id, MAX_COMMITS)).map(commitJson);
    },

    async createDeploy(viewer, orgSlug, version, input) {
      const ctx = await writer(viewer, orgSlug);
      const row = await findWritable(ctx, version);
      const body = validate(deploySchema, input);
      const d = await writeTx(db, (tx) =>
        insertDeploy(tx, {
          releaseId: row.id,
          environment: body.environment,
          name: body.name ?? null,
          url: body.url ?? null,
          dateStarted: body.dateStarted ?? null,
          dateFinished: body.dateFinished ?? now(),
        }),
      );
      return deployJson(d);
    },

    async listDeploys(viewer, orgSlug, version) {
      const ctx = await reader(viewer, orgSlug);
      const row = await findRow(ctx, version);
      return (await listDeploys(db, row.id, 1000)).map(deployJson);
    },

    async extras(viewer, orgSlug, version) {
      const ctx = await reader(viewer, orgSlug);
      const row = await findRow(ctx, version);
      const [commits, deploys, metas] = await Promise.all([
        listCommits(db, row.id, 200),
        listDeploys(db, row.id, 50),
        releaseMetas(db, [row.id]),
      ]);
      return { commits, deploys, meta: metas.get(row.id) ?? null };
    },
  };
}
