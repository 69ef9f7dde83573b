/**
 * Source-map artifacts: uploaded chunks, assembled bundles and their files, the debug-id and
 * release-URL lookups the digest worker makes, re-symbolication jobs and the events waiting for a
 * debug id. File contents are gzip blobs (maps compress 3–5×).
 */
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { sql } from "kysely";
import type { Db } from "../db";
import { type Tx, writeTx } from "../dialect";
import { encodePayload } from "../events/events";

const gunzipAsync = promisify(gunzip);
type Conn = Db | Tx;
const k = (c: Conn): Tx => ("kysely" in c ? c.kysely : c);

// ---------------------------------------------------------------------------------------------
// Chunks

export async function missingChunks(c: Conn, orgId: number, checksums: string[]): Promise<string[]> {
  if (checksums.length === 0) return [];
  const rows = await k(c)
    .selectFrom("artifact_chunks")
    .select("checksum")
    .where("org_id", "=", orgId)
    .where("checksum", "in", checksums)
    .execute();
  const have = new Set(rows.map((r) => r.checksum));
  return [...new Set(checksums.filter((s) => !have.has(s)))];
}

/** Stores a verified chunk; a chunk already stored (same org, same sha1) is left as is. */
export async function storeChunk(c: Conn, ch: { orgId: number; checksum: string; data: Uint8Array; now: number }): Promise<void> {
  await k(c)
    .insertInto("artifact_chunks")
    .values({
      org_id: ch.orgId,
      checksum: ch.checksum,
      size: ch.data.length,
      data: Buffer.from(ch.data.buffer, ch.data.byteOffset, ch.data.length),
      created_at: ch.now,
    })
    .onConflict((oc) => oc.columns(["org_id", "checksum"]).doNothing())
    .execute();
}

export async function chunkSizes(c: Conn, orgId: number, checksums: string[]): Promise<Map<string, number>> {
  if (checksums.length === 0) return new Map();
  const rows = await k(c)
    .selectFrom("artifact_chunks")
    .select(["checksum", "size"])
    .where("org_id", "=", orgId)
    .where("checksum", "in", checksums)
    .execute();
  return new Map(rows.map((r) => [r.checksum, Number(r.size)]));
}

/**
 * A stored chunk's bytes in pieces of at most `pieceSize` (substr over the blob, which both SQLite
 * and PostgreSQL cut on the server), so joining a bundle never holds a whole chunk. Yields nothing
 * when the chunk is gone.
 */
export async function* chunkPieces(c: Conn, orgId: number, checksum: string, pieceSize: number): AsyncIterable<Buffer> {
  const head = await k(c)
    .selectFrom("artifact_chunks")
    .select("size")
    .where("org_id", "=", orgId)
    .where("checksum", "=", checksum)
    .executeTakeFirst();
  if (!head) return;
  const size = Number(head.size);
  if (size === 0) yield Buffer.alloc(0);
  for (let at = 0; at < size; at += pieceSize) {
    const row = await k(c)
      .selectFrom("artifact_chunks")
      // substr counts from 1 on both databases.
      .select(sql<Uint8Array>`substr(data, ${at + 1}, ${pieceSize})`.as("piece"))
      .where("org_id", "=", orgId)
      .where("checksum", "=", checksum)
      .executeTakeFirst();
    if (!row) throw new Error(`chunk ${checksum} disappeared while it was read`);
    yield Buffer.from(row.piece.buffer, row.piece.byteOffset, row.piece.byteLength);
  }
}

export async function deleteChunks(c: Conn, orgId: number, checksums: string[]): Promise<void> {
  if (checksums.length === 0) return;
  await k(c).deleteFrom("artifact_chunks").where("org_id", "=", orgId).where("checksum", "in", checksums).execute();
}

/** Chunks uploaded but never assembled (an aborted upload). */
export async function deleteStaleChunks(c: Conn, before: number): Promise<number> {
  const res = await k(c).deleteFrom("artifact_chunks").where("created_at", "<", before).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Bundles and files

export interface NewArtifactFile {
  url: string;
  type: string;
  debugId: string | null;
  sourcemap: string | null;
  size: number;
  sha1: string;
  /**
   * gzip-compressed content, or how to read it: a large bundle's files wait on disk and each is
   * read only as its row is written, so a transaction never holds them all.
   */
  gz: Buffer | (() => Promise<Buffer>);
}

export interface BundleRow {
  id: number;
  release: string;
  dist: string;
}

export async function findBundle(c: Conn, orgId: number, checksum: string): Promise<BundleRow | undefined> {
  const row = await k(c)
    .selectFrom("artifact_bundles")
    .select(["id", "release", "dist"])
    .where("org_id", "=", orgId)
    .where("checksum", "=", checksum)
    .executeTakeFirst();
  return row ? { id: Number(row.id), release: row.release, dist: row.dist } : undefined;
}

export async function insertBundle(
  tx: Tx,
  b: {
    orgId: number;
    checksum: string;
    bundleDebugId: string | null;
    release: string;
    dist: string;
    size: number;
    projectIds: number[];
    files: NewArtifactFile[];
    now: number;
  },
): Promise<number> {
  const row = await tx
    .insertInto("artifact_bundles")
    .values({
      org_id: b.orgId,
      checksum: b.checksum,
      bundle_debug_id: b.bundleDebugId,
      release: b.release,
      dist: b.dist,
      file_count: b.files.length,
      size: b.size,
      created_at: b.now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const bundleId = Number(row.id);
  await addBundleProjects(tx, bundleId, b.projectIds);
  for (const f of b.files) {
    await insertFile(tx, { orgId: b.orgId, bundleId, release: b.release, dist: b.dist, file: f, now: b.now });
  }
  return bundleId;
}

export async function addBundleProjects(tx: Tx, bundleId: number, projectIds: number[]): Promise<void> {
  if (projectIds.length === 0) return;
  await tx
    .insertInto("artifact_bundle_projects")
    .values(projectIds.map((p) => ({ bundle_id: bundleId, project_id: p })))
    .onConflict((oc) => oc.columns(["bundle_id", "project_id"]).doNothing())
    .execute();
}

async function insertFile(
  tx: Tx,
  f: { orgId: number; bundleId: number | null; release: string; dist: string; file: NewArtifactFile; now: number },
): Promise<number> {
  const row = await tx
    .insertInto("artifact_files")
    .values({
      org_id: f.orgId,
      bundle_id: f.bundleId,
      release: f.release,
      dist: f.dist,
      url: f.file.url,
      type: f.file.type,
      debug_id: f.file.debugId,
      sourcemap: f.file.sourcemap,
      size: f.file.size,
      sha1: f.file.sha1,
      data: typeof f.file.gz === "function" ? await f.file.gz() : f.file.gz,
      created_at: f.now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function bundleProjectIds(c: Conn, bundleId: number): Promise<number[]> {
  const rows = await k(c).selectFrom("artifact_bundle_projects").select("project_id").where("bundle_id", "=", bundleId).execute();
  return rows.map((r) => Number(r.project_id));
}

/** The debug ids a bundle's source maps carry (what a re-symbolication job looks for). */
export async function bundleDebugIds(c: Conn, bundleId: number): Promise<string[]> {
  const rows = await k(c)
    .selectFrom("artifact_files")
    .select("debug_id")
    .distinct()
    .where("bundle_id", "=", bundleId)
    .where("debug_id", "is not", null)
    .execute();
  return rows.map((r) => r.debug_id as string);
}

export interface ReleaseFileRow {
  id: number;
  url: string;
  dist: string;
  size: number;
  sha1: string;
  sourcemap: string | null;
  createdAt: number;
}

export async function findReleaseFile(
  c: Conn,
  q: { orgId: number; release: string; dist: string; url: string },
): Promise<ReleaseFileRow | undefined> {
  const row = await k(c)
    .selectFrom("artifact_files")
    .select(["id", "url", "dist", "size", "sha1", "sourcemap", "created_at"])
    .where("org_id", "=", q.orgId)
    .where("release", "=", q.release)
    .where("dist", "=", q.dist)
    .where("url", "=", q.url)
    .where("bundle_id", "is", null)
    .executeTakeFirst();
  return row
    ? {
        id: Number(row.id),
        url: row.url,
        dist: row.dist,
        size: Number(row.size),
        sha1: row.sha1,
        sourcemap: row.sourcemap,
        createdAt: Number(row.created_at),
      }
    : undefined;
}

/** A legacy release file (`POST …/releases/{version}/files/`). */
export async function insertReleaseFile(
  tx: Tx,
  f: { orgId: number; release: string; dist: string; file: NewArtifactFile; now: number },
): Promise<number> {
  return insertFile(tx, { orgId: f.orgId, bundleId: null, release: f.release, dist: f.dist, file: f.file, now: f.now });
}

// ---------------------------------------------------------------------------------------------
// Digest-time lookups

/** Highest file id: changes whenever anything is uploaded (lookup caches compare it). */
export async function artifactGeneration(c: Conn): Promise<number> {
  const row = await k(c)
    .selectFrom("artifact_files")
    .select((eb) => eb.fn.max("id").as("g"))
    .executeTakeFirst();
  return Number(row?.g ?? 0);
}

export interface ArtifactRef {
  id: number;
  url: string;
  type: string;
  sourcemap: string | null;
  debugId: string | null;
  /** the bundle it came in; null for a legacy release file */
  bundleId: number | null;
}

/**
 * The newest file of this type and debug id that the project may use: from a bundle uploaded for
 * the project, from a bundle naming no project, or a release file.
 */
export async function findFileByDebugId(
  c: Conn,
  q: { orgId: number; projectId: number; debugId: string; type: string },
): Promise<ArtifactRef | undefined> {
  const row = await k(c)
    .selectFrom("artifact_files as f")
    .select(["f.id", "f.url", "f.type", "f.sourcemap", "f.debug_id", "f.bundle_id"])
    .where("f.org_id", "=", q.orgId)
    .where("f.debug_id", "=", q.debugId)
    .where("f.type", "=", q.type)
    .where((eb) =>
      eb.or([
        eb("f.bundle_id", "is", null),
        eb.exists(
          eb
            .selectFrom("artifact_bundle_projects as bp")
            .select("bp.bundle_id")
            .whereRef("bp.bundle_id", "=", "f.bundle_id")
            .where("bp.project_id", "=", q.projectId),
        ),
        eb.not(
          eb.exists(eb.selectFrom("artifact_bundle_projects as bp2").select("bp2.bundle_id").whereRef("bp2.bundle_id", "=", "f.bundle_id")),
        ),
      ]),
    )
    .orderBy("f.id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? toRef(row) : undefined;
}

function toRef(r: {
  id: number;
  url: string;
  type: string;
  sourcemap: string | null;
  debug_id: string | null;
  bundle_id: number | null;
}): ArtifactRef {
  return {
    id: Number(r.id),
    url: r.url,
    type: r.type,
    sourcemap: r.sourcemap,
    debugId: r.debug_id,
    bundleId: r.bundle_id === null ? null : Number(r.bundle_id),
  };
}

/** The newest release artifact uploaded under one of these names (best name first wins). */
export async function findReleaseArtifact(
  c: Conn,
  q: { orgId: number; release: string; dist: string; urls: string[]; types: string[] },
): Promise<ArtifactRef | undefined> {
  if (q.urls.length === 0) return undefined;
  const rows = await k(c)
    .selectFrom("artifact_files")
    .select(["id", "url", "type", "sourcemap", "debug_id", "bundle_id"])
    .where("org_id", "=", q.orgId)
    .where("release", "=", q.release)
    .where("dist", "=", q.dist)
    .where("url", "in", q.urls)
    .where("type", "in", q.types)
    .orderBy("id", "desc")
    .execute();
  for (const url of q.urls) {
    const r = rows.find((x) => x.url === url);
    if (r) return toRef(r);
  }
  return undefined;
}

export async function hasReleaseArtifacts(c: Conn, orgId: number, release: string): Promise<boolean> {
  const row = await k(c)
    .selectFrom("artifact_files")
    .select("id")
    .where("org_id", "=", orgId)
    .where("release", "=", release)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A file's content, decompressed off the event loop. */
export async function readArtifactFile(c: Conn, fileId: number): Promise<Buffer | undefined> {
  const row = await k(c).selectFrom("artifact_files").select("data").where("id", "=", fileId).executeTakeFirst();
  return row ? gunzipAsync(Buffer.from(row.data)) : undefined;
}

export async function orgOfProject(c: Conn, projectId: number): Promise<number | undefined> {
  const row = await k(c).selectFrom("projects").select("org_id").where("id", "=", projectId).executeTakeFirst();
  return row ? Number(row.org_id) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Re-symbolication

export async function enqueueResymbolication(tx: Tx, j: { orgId: number; debugIds: string[]; now: number }): Promise<void> {
  if (j.debugIds.length === 0) return;
  await tx
    .insertInto("artifact_jobs")
    .values({ org_id: j.orgId, debug_ids: JSON.stringify(j.debugIds), created_at: j.now, available_at: j.now, attempts: 0, processed: 0 })
    .execute();
}

export interface ResymbolicationJob {
  id: number;
  orgId: number;
  debugIds: string[];
  attempts: number;
  processed: number;
}

/** Takes the oldest available job for `leaseMs` (another worker may take it after, e.g. on a crash). */
export async function claimResymbolicationJob(c: Conn, now: number, leaseMs: number): Promise<ResymbolicationJob | undefined> {
  const row = await k(c)
    .selectFrom("artifact_jobs")
    .select(["id", "org_id", "debug_ids", "attempts", "processed", "available_at"])
    .where("available_at", "<=", now)
    .orderBy("available_at")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  // Optimistic claim: only one worker moves available_at from the value it read.
  const res = await k(c)
    .updateTable("artifact_jobs")
    .set({ available_at: now + leaseMs, attempts: Number(row.attempts) + 1 })
    .where("id", "=", row.id)
    .where("available_at", "=", row.available_at)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows ?? 0) === 0) return undefined;
  let debugIds: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.debug_ids);
    if (Array.isArray(parsed)) debugIds = parsed.filter((d): d is string => typeof d === "string");
  } catch {
    // a damaged row has nothing to do
  }
  return { id: Number(row.id), orgId: Number(row.org_id), debugIds, attempts: Number(row.attempts) + 1, processed: Number(row.processed) };
}

export async function continueResymbolicationJob(c: Conn, id: number, processed: number, availableAt: number): Promise<void> {
  await k(c).updateTable("artifact_jobs").set({ processed, available_at: availableAt, attempts: 0 }).where("id", "=", id).execute();
}

export async function finishResymbolicationJob(c: Conn, id: number): Promise<void> {
  await k(c).deleteFrom("artifact_jobs").where("id", "=", id).execute();
}

export async function recordEventDebugIds(
  tx: Tx,
  e: { projectId: number; eventId: string; debugIds: string[]; receivedAt: number },
): Promise<void> {
  if (e.debugIds.length === 0) return;
  await tx
    .insertInto("event_debug_ids")
    .values(e.debugIds.map((d) => ({ project_id: e.projectId, debug_id: d, event_id: e.eventId, received_at: e.receivedAt })))
    .onConflict((oc) => oc.columns(["debug_id", "project_id", "event_id"]).doNothing())
    .execute();
}

/** Recent events of the org's projects waiting for one of these debug ids, newest first. */
export async function eventsWaitingForDebugIds(
  c: Conn,
  q: { orgId: number; debugIds: string[]; since: number; limit: number },
): Promise<Array<{ projectId: number; eventId: string }>> {
  if (q.debugIds.length === 0) return [];
  const rows = await k(c)
    .selectFrom("event_debug_ids as w")
    .innerJoin("projects as p", "p.id", "w.project_id")
    .select(["w.project_id", "w.event_id"])
    .select((eb) => eb.fn.max("w.received_at").as("received_at"))
    .where("p.org_id", "=", q.orgId)
    .where("w.debug_id", "in", q.debugIds)
    .where("w.received_at", ">=", q.since)
    .groupBy(["w.project_id", "w.event_id"])
    .orderBy("received_at", "desc")
    .limit(q.limit)
    .execute();
  return rows.map((r) => ({ projectId: Number(r.project_id), eventId: r.event_id }));
}

export async function deleteEventDebugIds(c: Conn, e: { projectId: number; eventId: string; debugIds: string[] }): Promise<void> {
  if (e.debugIds.length === 0) return;
  await k(c)
    .deleteFrom("event_debug_ids")
    .where("project_id", "=", e.projectId)
    .where("event_id", "=", e.eventId)
    .where("debug_id", "in", e.debugIds)
    .execute();
}

/** Records that the digest resolved a frame with this bundle (callers throttle it to daily). */
export async function touchBundle(c: Conn, bundleId: number, now: number): Promise<void> {
  await k(c).updateTable("artifact_bundles").set({ last_used_at: now }).where("id", "=", bundleId).execute();
}

/**
 * Deletes up to `limit` bundles unused (or, never used, uploaded) before `before`, with their files
 * and project links; returns how many. Legacy release files (no bundle) are kept.
 */
export async function deleteUnusedBundles(db: Db, before: number, limit: number): Promise<number> {
  const ids = (
    await db.kysely
      .selectFrom("artifact_bundles")
      .select("id")
      .where((eb) => eb.fn.coalesce("last_used_at", "created_at"), "<", before)
      .orderBy("id")
      .limit(limit)
      .execute()
  ).map((r) => Number(r.id));
  if (ids.length === 0) return 0;
  await writeTx(db, async (tx) => {
    await tx.deleteFrom("artifact_files").where("bundle_id", "in", ids).execute();
    await tx.deleteFrom("artifact_bundle_projects").where("bundle_id", "in", ids).execute();
    await tx.deleteFrom("artifact_bundles").where("id", "in", ids).execute();
  });
  return ids.length;
}

/** Waiting rows older than the re-symbolication window can never be used again. */
export async function deleteOldEventDebugIds(c: Conn, before: number): Promise<number> {
  const res = await k(c).deleteFrom("event_debug_ids").where("received_at", "<", before).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}

/**
 * Replaces a stored event's payload after re-symbolication. The event stays in its issue; its
 * culprit column follows the readable frames.
 */
export async function rewriteEventPayload(
  tx: Tx,
  e: { projectId: number; eventId: string; payload: unknown; culprit: string },
): Promise<void> {
  const { blob, size } = encodePayload(e.payload);
  await tx
    .updateTable("events")
    .set({ payload: blob, size, culprit: e.culprit })
    .where("project_id", "=", e.projectId)
    .where("event_id", "=", e.eventId)
    .execute();
}

/**
 * Makes `hashes` (the grouping of the now readable event) lead to the event's existing issue, so
 * later events — symbolicated before grouping — join it instead of splitting off. A hash already
 * owned by another issue keeps its owner.
 */
export async function aliasIssueHashes(
  tx: Tx,
  a: { projectId: number; issueId: number; hashes: string[]; groupingVersion: string },
): Promise<void> {
  if (a.hashes.length === 0) return;
  await tx
    .insertInto("issue_hashes")
    .values(a.hashes.map((hash) => ({ project_id: a.projectId, hash, issue_id: a.issueId, grouping_version: a.groupingVersion })))
    .onConflict((oc) => oc.columns(["project_id", "hash"]).doNothing())
    .execute();
}

/** The issue's culprit follows its events' readable frames, if it still shows the minified one. */
export async function updateIssueCulprit(tx: Tx, u: { issueId: number; from: string; to: string }): Promise<void> {
  if (u.from === u.to) return;
  await tx.updateTable("issues").set({ culprit: u.to }).where("id", "=", u.issueId).where("culprit", "=", u.from).execute();
}

// ---------------------------------------------------------------------------------------------
// Releases (legacy release-file flow)

/** Creates the release if new (the table the issue lifecycle also fills) and links the projects. */
export async function ensureRelease(
  tx: Tx,
  r: { orgId: number; version: string; projectIds: number[]; now: number },
): Promise<{ id: number; createdAt: number }> {
  await tx
    .insertInto("releases")
    .values({ org_id: r.orgId, version: r.version, created_at: r.now })
    .onConflict((oc) => oc.columns(["org_id", "version"]).doNothing())
    .execute();
  const row = await tx
    .selectFrom("releases")
    .select(["id", "created_at"])
    .where("org_id", "=", r.orgId)
    .where("version", "=", r.version)
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  if (r.projectIds.length > 0) {
    await tx
      .insertInto("release_projects")
      .values(r.projectIds.map((p) => ({ project_id: p, release_id: id, first_seen: r.now })))
      .onConflict((oc) => oc.columns(["project_id", "release_id"]).doNothing())
      .execute();
  }
  return { id, createdAt: Number(row.created_at) };
}

export async function findRelease(c: Conn, orgId: number, version: string): Promise<{ id: number; createdAt: number } | undefined> {
  const row = await k(c)
    .selectFrom("releases")
    .select(["id", "created_at"])
    .where("org_id", "=", orgId)
    .where("version", "=", version)
    .executeTakeFirst();
  return row ? { id: Number(row.id), createdAt: Number(row.created_at) } : undefined;
}
