/**
 * Reads of the releases screens: the releases of an organization's projects (newest first, keyset
 * pagination), and per release its new issues, regressions, session totals and artifacts. Writes
 * of releases live in releases.ts (events, resolutions) and artifacts.ts (uploads).
 */
import { sql } from "kysely";
import type { Db } from "../db";
import { type IssueRow, issueColumns, toIssue } from "../issues/issues";
import { seenByClause } from "./meta";

export interface ReleaseListRow {
  id: number;
  version: string;
  /** when Errata first learnt of it (an event, a resolution or an upload) */
  createdAt: number;
  /** the projects (of those asked for) it was seen in, with when it was first seen there */
  projects: Array<{ projectId: number; firstSeen: number }>;
}

export interface ReleaseCursor {
  createdAt: number;
  id: number;
}

/**
 * Releases of the org (also those no event named yet, e.g. from `sentry-cli releases new`), or
 * only those seen in one project, newest first, after the cursor; with where each was seen among
 * `projectIds`.
 */
export async function listReleases(
  db: Db,
  q: {
    orgId: number;
    projectIds: number[];
    /** Only releases of no project or of one of these (the viewer's visible projects); null or absent: all. */
    seenBy?: readonly number[] | null;
    cursor?: ReleaseCursor | null;
    limit: number;
    version?: string;
    onlyProjectId?: number;
  },
): Promise<ReleaseListRow[]> {
  let query = db.kysely.selectFrom("releases").select(["id", "version", "created_at"]).where("org_id", "=", q.orgId);
  if (q.version !== undefined) query = query.where("version", "=", q.version);
  const seenBy = q.seenBy;
  if (seenBy) query = query.where((eb) => seenByClause(eb, seenBy));
  const only = q.onlyProjectId;
  if (only !== undefined) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("release_projects")
          .select("release_projects.release_id")
          .whereRef("release_projects.release_id", "=", "releases.id")
          .where("release_projects.project_id", "=", only),
      ),
    );
  }
  const c = q.cursor;
  if (c)
    query = query.where((eb) =>
      eb.or([eb("created_at", "<", c.createdAt), eb.and([eb("created_at", "=", c.createdAt), eb("id", "<", c.id)])]),
    );
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(q.limit).execute();
  if (rows.length === 0) return [];
  const links =
    q.projectIds.length === 0
      ? []
      : await db.kysely
          .selectFrom("release_projects")
          .select(["release_id", "project_id", "first_seen"])
          .where(
            "release_id",
            "in",
            rows.map((r) => Number(r.id)),
          )
          .where("project_id", "in", q.projectIds)
          .execute();
  const byRelease = new Map<number, Array<{ projectId: number; firstSeen: number }>>();
  for (const l of links) {
    const list = byRelease.get(Number(l.release_id)) ?? [];
    list.push({ projectId: Number(l.project_id), firstSeen: Number(l.first_seen) });
    byRelease.set(Number(l.release_id), list);
  }
  return rows.map((r) => ({
    id: Number(r.id),
    version: r.version,
    createdAt: Number(r.created_at),
    projects: (byRelease.get(Number(r.id)) ?? []).sort((a, b) => a.firstSeen - b.firstSeen),
  }));
}

export interface SessionTotals {
  total: number;
  ok: number;
  errored: number;
  unhandled: number;
  abnormal: number;
  crashed: number;
}

export interface ReleaseCounts {
  /** issues of these projects whose first event named the release */
  newIssues: number;
  /** null when no session was ever counted for it */
  sessions: SessionTotals | null;
  /** distinct users (the SDK's `did`) with sessions in it; null without session data */
  users: number | null;
  /** of those, the users with a crashed session; null without session data */
  crashedUsers: number | null;
  /** uploaded artifact bundles naming it, and their files, plus legacy release files */
  bundles: number;
  files: number;
}

const emptyCounts = (): ReleaseCounts => ({ newIssues: 0, sessions: null, users: null, crashedUsers: null, bundles: 0, files: 0 });

/** The counts shown for each release of a page: a handful of grouped queries for the whole page. */
export async function releaseCounts(
  db: Db,
  q: { orgId: number; projectIds: number[]; versions: string[] },
): Promise<Map<string, ReleaseCounts>> {
  const out = new Map<string, ReleaseCounts>(q.versions.map((v) => [v, emptyCounts()]));
  if (q.versions.length === 0) return out;
  const at = (v: string) => out.get(v) ?? out.set(v, emptyCounts()).get(v);
  const withProjects = q.projectIds.length > 0;
  const [issues, sessions, users, bundles, legacy] = await Promise.all([
    withProjects
      ? db.kysely
          .selectFrom("issues")
          .select(["first_release", db.kysely.fn.countAll<number>().as("n")])
          .where("project_id", "in", q.projectIds)
          .where("first_release", "in", q.versions)
          .groupBy("first_release")
          .execute()
      : [],
    withProjects
      ? db.kysely
          .selectFrom("session_aggregates")
          .select((eb) => [
            "release",
            eb.fn.sum<number>("total").as("total"),
            eb.fn.sum<number>("ok").as("ok"),
            eb.fn.sum<number>("errored").as("errored"),
            eb.fn.sum<number>("unhandled").as("unhandled"),
            eb.fn.sum<number>("abnormal").as("abnormal"),
            eb.fn.sum<number>("crashed").as("crashed"),
          ])
          .where("project_id", "in", q.projectIds)
          .where("release", "in", q.versions)
          .groupBy("release")
          .execute()
      : [],
    withProjects
      ? db.kysely
          .selectFrom("session_users")
          .select([
            "release",
            sql<number>`count(distinct did_hash)`.as("n"),
            sql<number>`count(distinct case when crashed = 1 then did_hash end)`.as("crashed"),
          ])
          .where("project_id", "in", q.projectIds)
          .where("release", "in", q.versions)
          .groupBy("release")
          .execute()
      : [],
    db.kysely
      .selectFrom("artifact_bundles")
      .select((eb) => ["release", eb.fn.countAll<number>().as("n"), eb.fn.sum<number>("file_count").as("files")])
      .where("org_id", "=", q.orgId)
      .where("release", "in", q.versions)
      .groupBy("release")
      .execute(),
    db.kysely
      .selectFrom("artifact_files")
      .select(["release", db.kysely.fn.countAll<number>().as("n")])
      .where("org_id", "=", q.orgId)
      .where("bundle_id", "is", null)
      .where("release", "in", q.versions)
      .groupBy("release")
      .execute(),
  ]);
  for (const r of issues) if (r.first_release !== null) (at(r.first_release) as ReleaseCounts).newIssues = Number(r.n);
  for (const r of sessions) {
    (at(r.release) as ReleaseCounts).sessions = {
      total: Number(r.total),
      ok: Number(r.ok),
      errored: Number(r.errored),
      unhandled: Number(r.unhandled),
      abnormal: Number(r.abnormal),
      crashed: Number(r.crashed),
    };
  }
  for (const r of users) {
    const c = at(r.release) as ReleaseCounts;
    c.users = Number(r.n);
    c.crashedUsers = Number(r.crashed);
  }
  for (const r of bundles) {
    const c = at(r.release) as ReleaseCounts;
    c.bundles += Number(r.n);
    c.files += Number(r.files);
  }
  for (const r of legacy) (at(r.release) as ReleaseCounts).files += Number(r.n);
  return out;
}

/** Issues of these projects first seen in the release, newest first. */
export async function newIssuesInRelease(db: Db, q: { projectIds: number[]; version: string; limit: number }): Promise<IssueRow[]> {
  if (q.projectIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom("issues")
    .select(issueColumns)
    .where("project_id", "in", q.projectIds)
    .where("first_release", "=", q.version)
    .orderBy("first_seen", "desc")
    .orderBy("id", "desc")
    .limit(q.limit)
    .execute();
  return rows.map(toIssue);
}

export interface RegressionRow {
  issue: IssueRow;
  /** when the regression was recorded */
  at: number;
}

/**
 * Issues that regressed with an event of this release (their `regression` activity names it),
 * latest regression first, one row per issue. The activity JSON is narrowed with LIKE where the
 * version is plain text, then matched exactly after parsing.
 */
export async function regressionsInRelease(db: Db, q: { projectIds: number[]; version: string; limit: number }): Promise<RegressionRow[]> {
  if (q.projectIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("activity")
    .select(["issue_id", "data", "created_at"])
    .where("project_id", "in", q.projectIds)
    .where("kind", "=", "regression");
  // Only a version JSON writes verbatim is narrowed: escapes (\\, ") read differently in each dialect's LIKE.
  const quoted = JSON.stringify(q.version);
  if (quoted === `"${q.version}"`) query = query.where("data", "like", `%"release":${quoted}%`);
  const acts = await query.orderBy("created_at", "desc").limit(2000).execute();
  const latest = new Map<number, number>();
  for (const a of acts) {
    if (releaseOf(a.data) !== q.version) continue;
    const id = Number(a.issue_id);
    if (!latest.has(id)) latest.set(id, Number(a.created_at));
    if (latest.size >= q.limit) break;
  }
  if (latest.size === 0) return [];
  const rows = await db.kysely
    .selectFrom("issues")
    .select(issueColumns)
    .where("id", "in", [...latest.keys()])
    .execute();
  return rows
    .map((r) => toIssue(r))
    .map((issue) => ({ issue, at: latest.get(issue.id) ?? 0 }))
    .sort((a, b) => b.at - a.at);
}

function releaseOf(data: string): unknown {
  try {
    return (JSON.parse(data) as { release?: unknown }).release;
  } catch {
    return undefined;
  }
}

export interface ReleaseArtifact {
  /** bundle id, or null for a legacy release file */
  bundleId: number | null;
  /** for a bundle: its dist; for a file: its URL */
  name: string;
  dist: string;
  files: number;
  size: number;
  createdAt: number;
  /** the projects a bundle was uploaded for (empty: the whole organization) */
  projectIds: number[];
}

/** Artifact bundles naming the release and legacy release files (`sentry-cli releases files upload`), newest first. */
export async function releaseArtifacts(db: Db, q: { orgId: number; version: string; limit: number }): Promise<ReleaseArtifact[]> {
  const [bundles, files] = await Promise.all([
    db.kysely
      .selectFrom("artifact_bundles")
      .select(["id", "dist", "file_count", "size", "created_at"])
      .where("org_id", "=", q.orgId)
      .where("release", "=", q.version)
      .orderBy("created_at", "desc")
      .limit(q.limit)
      .execute(),
    db.kysely
      .selectFrom("artifact_files")
      .select(["url", "dist", "size", "created_at", "type"])
      .where("org_id", "=", q.orgId)
      .where("bundle_id", "is", null)
      .where("release", "=", q.version)
      .orderBy("created_at", "desc")
      .limit(q.limit)
      .execute(),
  ]);
  const bundleIds = bundles.map((b) => Number(b.id));
  const links =
    bundleIds.length === 0
      ? []
      : await db.kysely
          .selectFrom("artifact_bundle_projects")
          .select(["bundle_id", "project_id"])
          .where("bundle_id", "in", bundleIds)
          .execute();
  const projectsOf = new Map<number, number[]>();
  for (const l of links) projectsOf.set(Number(l.bundle_id), [...(projectsOf.get(Number(l.bundle_id)) ?? []), Number(l.project_id)]);
  const out: ReleaseArtifact[] = [
    ...bundles.map((b) => ({
      bundleId: Number(b.id),
      name: b.dist,
      dist: b.dist,
      files: Number(b.file_count),
      size: Number(b.size),
      createdAt: Number(b.created_at),
      projectIds: projectsOf.get(Number(b.id)) ?? [],
    })),
    ...files.map((f) => ({
      bundleId: null,
      name: f.url,
      dist: f.dist,
      files: 1,
      size: Number(f.size),
      createdAt: Number(f.created_at),
      projectIds: [],
    })),
  ];
  return out.sort((a, b) => b.createdAt - a.createdAt).slice(0, q.limit);
}

export interface SessionDay extends SessionTotals {
  /** start of the UTC day, epoch ms */
  day: number;
}

/** Session totals of the release per UTC day with `from <= hour < to`, oldest first (days without sessions left out). */
export async function releaseSessionDays(
  db: Db,
  q: { projectIds: number[]; version: string; from: number; to: number },
): Promise<SessionDay[]> {
  if (q.projectIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom("session_aggregates")
    .select(["hour", "total", "ok", "errored", "unhandled", "abnormal", "crashed"])
    .where("project_id", "in", q.projectIds)
    .where("release", "=", q.version)
    .where("hour", ">=", q.from)
    .where("hour", "<", q.to)
    .execute();
  const days = new Map<number, SessionDay>();
  for (const r of rows) {
    const day = Math.floor(Number(r.hour) / 86_400_000) * 86_400_000;
    const d = days.get(day) ?? { day, total: 0, ok: 0, errored: 0, unhandled: 0, abnormal: 0, crashed: 0 };
    d.total += Number(r.total);
    d.ok += Number(r.ok);
    d.errored += Number(r.errored);
    d.unhandled += Number(r.unhandled);
    d.abnormal += Number(r.abnormal);
    d.crashed += Number(r.crashed);
    days.set(day, d);
  }
  return [...days.values()].sort((a, b) => a.day - b.day);
}
