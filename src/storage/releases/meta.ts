/**
 * Sentry's release fields beyond the version (migration 0012): finalize time, ref, URL and status;
 * commits as `set-commits` sends them; deploys. Plus the per-release figures Sentry's release
 * serializer carries (last event from the `release` tag statistics) and the removal of a release.
 */
import { type ExpressionBuilder, sql } from "kysely";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { Database } from "../schema";

type Conn = Db | Tx;
const k = (c: Conn): Tx => ("kysely" in c ? c.kysely : c);

export interface ReleaseMeta {
  dateStarted: number | null;
  dateReleased: number | null;
  ref: string | null;
  url: string | null;
  status: string;
}

export interface ReleaseCommit {
  repository: string;
  id: string;
  previousCommit: string | null;
  authorName: string | null;
  authorEmail: string | null;
  message: string | null;
  timestamp: number | null;
  /** the files the commit changed (Sentry's `patch_set`), when sent */
  files?: CommitFile[];
}

export interface CommitFile {
  path: string;
  /** A (added), M (modified) or D (deleted) */
  type: string;
}

export interface Deploy {
  id: number;
  releaseId: number;
  environment: string;
  name: string | null;
  url: string | null;
  dateStarted: number | null;
  dateFinished: number;
}

const EMPTY_META: ReleaseMeta = { dateStarted: null, dateReleased: null, ref: null, url: null, status: "open" };

export async function releaseMetas(c: Conn, releaseIds: number[]): Promise<Map<number, ReleaseMeta>> {
  if (releaseIds.length === 0) return new Map();
  const rows = await k(c).selectFrom("release_meta").selectAll().where("release_id", "in", releaseIds).execute();
  return new Map(
    rows.map((r) => [
      Number(r.release_id),
      {
        dateStarted: r.date_started === null ? null : Number(r.date_started),
        dateReleased: r.date_released === null ? null : Number(r.date_released),
        ref: r.ref,
        url: r.url,
        status: r.status,
      },
    ]),
  );
}

/** Sets the given fields (undefined: unchanged; null clears). */
export async function patchReleaseMeta(tx: Tx, releaseId: number, patch: Partial<ReleaseMeta>): Promise<void> {
  const current = (await releaseMetas(tx, [releaseId])).get(releaseId);
  const next = { ...EMPTY_META, ...current };
  for (const [key, value] of Object.entries(patch)) if (value !== undefined) Object.assign(next, { [key]: value });
  const row = {
    date_started: next.dateStarted,
    date_released: next.dateReleased,
    ref: next.ref,
    url: next.url,
    status: next.status,
  };
  if (current) await tx.updateTable("release_meta").set(row).where("release_id", "=", releaseId).execute();
  else
    await tx
      .insertInto("release_meta")
      .values({ release_id: releaseId, ...row })
      .execute();
}

/** Replaces the release's commits with these (newest first, as sentry-cli sends them). */
export async function replaceCommits(tx: Tx, releaseId: number, commits: ReleaseCommit[]): Promise<void> {
  await tx.deleteFrom("release_commits").where("release_id", "=", releaseId).execute();
  // Chunked: a release may carry many commits and SQLite limits bound parameters.
  for (let i = 0; i < commits.length; i += 100) {
    await tx
      .insertInto("release_commits")
      .values(
        commits.slice(i, i + 100).map((c, j) => ({
          release_id: releaseId,
          position: i + j,
          repository: c.repository,
          commit_id: c.id,
          previous_commit: c.previousCommit,
          author_name: c.authorName,
          author_email: c.authorEmail,
          message: c.message,
          committed_at: c.timestamp,
        })),
      )
      .execute();
  }
  await tx.deleteFrom("release_commit_files").where("release_id", "=", releaseId).execute();
  const files = commits.flatMap((c) =>
    (c.files ?? []).map((f) => ({ release_id: releaseId, commit_id: c.id, path: f.path, change_type: f.type })),
  );
  for (let i = 0; i < files.length; i += 200) {
    await tx
      .insertInto("release_commit_files")
      .values(files.slice(i, i + 200))
      .execute();
  }
}

/** A release's commits with the files each changed (newest first), for suspect commits. */
export async function listCommitsWithFiles(
  c: Conn,
  releaseId: number,
  limit: number,
): Promise<Array<ReleaseCommit & { position: number; files: CommitFile[] }>> {
  const rows = await k(c)
    .selectFrom("release_commits")
    .selectAll()
    .where("release_id", "=", releaseId)
    .orderBy("position")
    .limit(limit)
    .execute();
  const files = await k(c)
    .selectFrom("release_commit_files")
    .select(["commit_id", "path", "change_type"])
    .where("release_id", "=", releaseId)
    .orderBy("id")
    .execute();
  const byCommit = new Map<string, CommitFile[]>();
  for (const f of files) {
    const list = byCommit.get(f.commit_id) ?? [];
    list.push({ path: f.path, type: f.change_type });
    byCommit.set(f.commit_id, list);
  }
  return rows.map((r) => ({
    repository: r.repository,
    id: r.commit_id,
    previousCommit: r.previous_commit,
    authorName: r.author_name,
    authorEmail: r.author_email,
    message: r.message,
    timestamp: r.committed_at === null ? null : Number(r.committed_at),
    position: Number(r.position),
    files: byCommit.get(r.commit_id) ?? [],
  }));
}

export async function listCommits(c: Conn, releaseId: number, limit: number): Promise<ReleaseCommit[]> {
  const rows = await k(c)
    .selectFrom("release_commits")
    .selectAll()
    .where("release_id", "=", releaseId)
    .orderBy("position")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    repository: r.repository,
    id: r.commit_id,
    previousCommit: r.previous_commit,
    authorName: r.author_name,
    authorEmail: r.author_email,
    message: r.message,
    timestamp: r.committed_at === null ? null : Number(r.committed_at),
  }));
}

export interface CommitStats {
  count: number;
  last: ReleaseCommit | null;
  authors: Array<{ name: string | null; email: string }>;
}

/** Commit count, newest commit and distinct authors per release. */
export async function commitStats(c: Conn, releaseIds: number[]): Promise<Map<number, CommitStats>> {
  const out = new Map<number, CommitStats>();
  if (releaseIds.length === 0) return out;
  const counts = await k(c)
    .selectFrom("release_commits")
    .select(["release_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("release_id", "in", releaseIds)
    .groupBy("release_id")
    .execute();
  for (const r of counts) {
    const id = Number(r.release_id);
    const [last] = await listCommits(c, id, 1);
    const authors = await k(c)
      .selectFrom("release_commits")
      .select(["author_email", (eb) => eb.fn.max("author_name").as("name")])
      .where("release_id", "=", id)
      .where("author_email", "is not", null)
      .groupBy("author_email")
      .orderBy("author_email")
      .limit(20)
      .execute();
    out.set(id, {
      count: Number(r.n),
      last: last ?? null,
      authors: authors.map((a) => ({ name: (a.name as string | null) ?? null, email: a.author_email as string })),
    });
  }
  return out;
}

/** The newest release of the org older than this one that has commits (set-commits' starting point). */
/** Releases of no project or of one of `seenBy` (the viewer's visible projects): what a viewer may read. */
export function seenByClause(eb: ExpressionBuilder<Database, "releases">, seenBy: readonly number[]) {
  const linked = eb
    .selectFrom("release_projects")
    .select("release_projects.release_id")
    .whereRef("release_projects.release_id", "=", "releases.id");
  const orgWide = eb.not(eb.exists(linked));
  return seenBy.length > 0 ? eb.or([orgWide, eb.exists(linked.where("release_projects.project_id", "in", [...seenBy]))]) : orgWide;
}

export async function previousReleaseWithCommits(
  c: Conn,
  orgId: number,
  before: { createdAt: number; id: number },
  seenBy: readonly number[] | null = null,
) {
  let q = k(c)
    .selectFrom("releases")
    .select(["releases.id", "releases.version", "releases.created_at"])
    .where("releases.org_id", "=", orgId)
    .where((eb) =>
      eb.or([
        eb("releases.created_at", "<", before.createdAt),
        eb.and([eb("releases.created_at", "=", before.createdAt), eb("releases.id", "<", before.id)]),
      ]),
    )
    .where((eb) =>
      eb.exists(eb.selectFrom("release_commits").select("release_commits.id").whereRef("release_commits.release_id", "=", "releases.id")),
    );
  if (seenBy) q = q.where((eb) => seenByClause(eb, seenBy));
  return q.orderBy("releases.created_at", "desc").orderBy("releases.id", "desc").executeTakeFirst();
}

export async function insertDeploy(tx: Tx, d: Omit<Deploy, "id">): Promise<Deploy> {
  const row = await tx
    .insertInto("release_deploys")
    .values({
      release_id: d.releaseId,
      environment: d.environment,
      name: d.name,
      url: d.url,
      date_started: d.dateStarted,
      date_finished: d.dateFinished,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { ...d, id: Number(row.id) };
}

function toDeploy(r: {
  id: number;
  release_id: number;
  environment: string;
  name: string | null;
  url: string | null;
  date_started: number | null;
  date_finished: number;
}): Deploy {
  return {
    id: Number(r.id),
    releaseId: Number(r.release_id),
    environment: r.environment,
    name: r.name,
    url: r.url,
    dateStarted: r.date_started === null ? null : Number(r.date_started),
    dateFinished: Number(r.date_finished),
  };
}

/** Newest first. */
export async function listDeploys(c: Conn, releaseId: number, limit: number): Promise<Deploy[]> {
  const rows = await k(c)
    .selectFrom("release_deploys")
    .selectAll()
    .where("release_id", "=", releaseId)
    .orderBy("date_finished", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map(toDeploy);
}

/** Deploy count and the newest deploy per release. */
export async function deployStats(c: Conn, releaseIds: number[]): Promise<Map<number, { count: number; last: Deploy }>> {
  const out = new Map<number, { count: number; last: Deploy }>();
  if (releaseIds.length === 0) return out;
  const counts = await k(c)
    .selectFrom("release_deploys")
    .select(["release_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("release_id", "in", releaseIds)
    .groupBy("release_id")
    .execute();
  for (const r of counts) {
    const [last] = await listDeploys(c, Number(r.release_id), 1);
    if (last) out.set(Number(r.release_id), { count: Number(r.n), last });
  }
  return out;
}

/** Last event per version in these projects, from the `release` tag statistics (no event scan). */
export async function lastEventByVersion(c: Conn, projectIds: number[], versions: string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0 || versions.length === 0) return new Map();
  const rows = await k(c)
    .selectFrom("issue_tag_values")
    .select(["value", (eb) => eb.fn.max("last_seen").as("last")])
    .where("project_id", "in", projectIds)
    .where("key", "=", "release")
    .where("value", "in", versions)
    .groupBy("value")
    .execute();
  return new Map(rows.map((r) => [r.value, Number(r.last)]));
}

/** Removes a release and what hangs off it (issues keep their first/last release names). */
export async function deleteReleaseRows(tx: Tx, releaseId: number): Promise<void> {
  await tx.deleteFrom("release_deploys").where("release_id", "=", releaseId).execute();
  await tx.deleteFrom("release_commits").where("release_id", "=", releaseId).execute();
  await tx.deleteFrom("release_commit_files").where("release_id", "=", releaseId).execute();
  await tx.deleteFrom("release_meta").where("release_id", "=", releaseId).execute();
  await tx.deleteFrom("release_projects").where("release_id", "=", releaseId).execute();
  await tx.deleteFrom("releases").where("id", "=", releaseId).execute();
}

export interface ReleasePageRow {
  id: number;
  version: string;
  createdAt: number;
  projectIds: number[];
  /** earliest first_seen over the projects (the release's creation for releases made by a client) */
  firstSeen: number | null;
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

/**
 * Releases of the org newest first (keyset on created_at, id), optionally only those of one
 * project and those whose version contains `query` (case-insensitive, as Sentry's `?query=`).
 */
export async function searchReleases(
  c: Conn,
  q: {
    orgId: number;
    projectIds: number[];
    onlyProjectId?: number;
    /** Only releases of no project or of one of these (the viewer's visible projects); null or absent: all. */
    seenBy?: readonly number[] | null;
    query?: string;
    version?: string;
    cursor?: { createdAt: number; id: number } | null;
    limit: number;
  },
): Promise<ReleasePageRow[]> {
  let query = k(c).selectFrom("releases").select(["id", "version", "created_at"]).where("org_id", "=", q.orgId);
  if (q.version !== undefined) query = query.where("version", "=", q.version);
  if (q.query) {
    const pattern = `%${likeEscape(q.query.toLowerCase())}%`;
    query = query.where((eb) => eb(eb.fn("lower", ["version"]), "like", sql<string>`${pattern} escape '\\'`));
  }
  const only = q.onlyProjectId;
  if (only !== undefined)
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("release_projects")
          .select("release_projects.release_id")
          .whereRef("release_projects.release_id", "=", "releases.id")
          .where("release_projects.project_id", "=", only),
      ),
    );
  const seenBy = q.seenBy;
  if (seenBy) query = query.where((eb) => seenByClause(eb, seenBy));
  const cur = q.cursor;
  if (cur)
    query = query.where((eb) =>
      eb.or([eb("created_at", "<", cur.createdAt), eb.and([eb("created_at", "=", cur.createdAt), eb("id", "<", cur.id)])]),
    );
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(q.limit).execute();
  if (rows.length === 0 || q.projectIds.length === 0)
    return rows.map((r) => ({ id: Number(r.id), version: r.version, createdAt: Number(r.created_at), projectIds: [], firstSeen: null }));
  const links = await k(c)
    .selectFrom("release_projects")
    .select(["release_id", "project_id", "first_seen"])
    .where(
      "release_id",
      "in",
      rows.map((r) => Number(r.id)),
    )
    .where("project_id", "in", q.projectIds)
    .orderBy("first_seen")
    .execute();
  return rows.map((r) => {
    const mine = links.filter((l) => Number(l.release_id) === Number(r.id));
    return {
      id: Number(r.id),
      version: r.version,
      createdAt: Number(r.created_at),
      projectIds: mine.map((l) => Number(l.project_id)),
      firstSeen: mine.length > 0 ? Number(mine[0]?.first_seen) : null,
    };
  });
}

/** A release of the organization by version with every project it belongs to, seen or not: what access decides on. */
export async function findReleaseProjects(
  c: Conn,
  orgId: number,
  version: string,
): Promise<{ id: number; projectIds: number[] } | undefined> {
  const row = await k(c).selectFrom("releases").select("id").where("org_id", "=", orgId).where("version", "=", version).executeTakeFirst();
  if (!row) return undefined;
  const links = await k(c).selectFrom("release_projects").select("project_id").where("release_id", "=", Number(row.id)).execute();
  return { id: Number(row.id), projectIds: links.map((l) => Number(l.project_id)) };
}

/** Issues first seen in each version, per project: Sentry's `newGroups`. */
export async function newIssuesByVersion(c: Conn, projectIds: number[], versions: string[]): Promise<Map<string, Map<number, number>>> {
  const out = new Map<string, Map<number, number>>();
  if (projectIds.length === 0 || versions.length === 0) return out;
  const rows = await k(c)
    .selectFrom("issues")
    .select(["first_release", "project_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("project_id", "in", projectIds)
    .where("first_release", "in", versions)
    .groupBy(["first_release", "project_id"])
    .execute();
  for (const r of rows) {
    const m = out.get(r.first_release as string) ?? new Map<number, number>();
    m.set(Number(r.project_id), Number(r.n));
    out.set(r.first_release as string, m);
  }
  return out;
}
