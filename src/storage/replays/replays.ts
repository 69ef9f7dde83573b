/**
 * Replay rows (migration 0047): one per replay, folded from its segments. Storing a segment is
 * idempotent (the queue delivers at least once): a segment already recorded changes nothing, so its
 * counts are added once; segments may arrive in any order — the fields merge commutatively
 * (earliest start, latest end, URLs and ids unioned, the first non-empty user/browser/release kept).
 */
import type { ReplayEventFields } from "../../core/replays/replay-event";
import { activityScore, type SegmentSummary } from "../../core/replays/summary";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import { isPostgres } from "../dialect";
import type { ReplaysTable } from "../schema";

export type ReplayRow = Omit<ReplaysTable, "id"> & { id: number };

/** Where a segment's blob lives: per project and replay, so either goes with one prefix. */
export function segmentKey(projectId: number, replayId: string, segmentId: number): string {
  return `replays/${projectId}/${replayId}/${segmentId}`;
}

/** Every replay blob of a project (deleted with the project). */
export function projectReplayPrefix(projectId: number): string {
  return `replays/${projectId}/`;
}

export interface NewSegment {
  segmentId: number;
  blobKey: string;
  size: number;
  rawSize: number;
  summary: SegmentSummary;
}

export interface StoreReplayInput {
  projectId: number;
  replayId: string;
  receivedAt: number;
  /** the segment's replay_event, when the envelope carried one */
  event: ReplayEventFields | null;
  segment: NewSegment | null;
  /** stored bytes one replay may hold */
  maxReplaySize: number;
}

export type StoreReplayResult = "stored" | "duplicate" | "foreign" | "too_large" | "unknown";

/** Who owns a replay id and how big it is (ingest's checks), or undefined. */
export async function findReplayOwner(db: Db, replayId: string): Promise<{ projectId: number; sizeBytes: number } | undefined> {
  const row = await db.kysely
    .selectFrom("replays")
    .select(["project_id", "size_bytes"])
    .where("replay_id", "=", replayId)
    .executeTakeFirst();
  return row ? { projectId: Number(row.project_id), sizeBytes: Number(row.size_bytes) } : undefined;
}

const json = (v: unknown) => JSON.stringify(v);
const parseList = (s: string): string[] => {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
};

/** "\nkey=value\n" lines: `LIKE '%\nkey=value\n%'` finds a tag in both dialects. */
export function tagLines(tags: ReadonlyArray<[string, string]>): string {
  if (tags.length === 0) return "\n";
  return `\n${tags.map(([k, v]) => `${k.replace(/[\n=]/g, " ")}=${v.replace(/\n/g, " ")}`).join("\n")}\n`;
}

function mergeTags(existing: string, add: ReadonlyArray<[string, string]>): string {
  const have = new Set(existing.split("\n").filter(Boolean));
  const lines = [...have];
  for (const line of tagLines(add).split("\n").filter(Boolean)) {
    if (!have.has(line) && lines.length < 200) {
      have.add(line);
      lines.push(line);
    }
  }
  return lines.length === 0 ? "\n" : `\n${lines.join("\n")}\n`;
}

function union(a: string[], b: readonly string[], max = 1000): string[] {
  const seen = new Set(a);
  const out = [...a];
  for (const x of b) {
    if (!seen.has(x) && out.length < max) {
      seen.add(x);
      out.push(x);
    }
  }
  return out;
}

/** The columns a replay_event sets when they are still empty. */
function firstValues(e: ReplayEventFields | null): Partial<ReplayRow> {
  if (!e) return {};
  return {
    replay_type: e.replayType,
    platform: e.platform,
    release: e.release,
    environment: e.environment,
    dist: e.dist,
    user_id: e.user.id,
    user_email: e.user.email,
    user_username: e.user.username,
    user_ip: e.user.ip,
    user_name: e.user.name,
    browser_name: e.browser.name,
    browser_version: e.browser.version,
    os_name: e.os.name,
    os_version: e.os.version,
    device_name: e.device.name,
    device_brand: e.device.brand,
    device_family: e.device.family,
    device_model: e.device.model,
    sdk_name: e.sdk.name,
    sdk_version: e.sdk.version,
  };
}

/**
 * Adds one envelope's replay data (its replay_event and/or one recording segment) to the replay,
 * inside the digest's transaction. Answers what happened; nothing is written for a replay of
 * another project, a segment past the size cap, or a bare segment of a replay never seen.
 */
export async function storeReplay(tx: Tx, input: StoreReplayInput): Promise<StoreReplayResult> {
  const { projectId, replayId, event, segment } = input;
  const startGuess = event?.startedAt ?? segment?.summary.startedAt ?? event?.timestamp ?? input.receivedAt;
  const endGuess = Math.max(event?.timestamp ?? 0, segment?.summary.endedAt ?? 0, startGuess);
  if (event) {
    // A skeleton first, so concurrent segments of one new replay (PostgreSQL workers) meet on one row.
    await tx
      .insertInto("replays")
      .values({
        project_id: projectId,
        replay_id: replayId,
        started_at: startGuess,
        finished_at: endGuess,
        received_at: input.receivedAt,
        ...firstValues(null),
        urls: "[]",
        trace_ids: "[]",
        tags: "\n",
        count_segments: 0,
        count_errors: 0,
        count_urls: 0,
        count_clicks: 0,
        count_dead_clicks: 0,
        count_rage_clicks: 0,
        activity: 1,
        size_bytes: 0,
      })
      .onConflict((oc) => oc.column("replay_id").doNothing())
      .execute();
  }
  let q = tx.selectFrom("replays").selectAll().where("replay_id", "=", replayId);
  if (isPostgres(tx)) q = q.forUpdate();
  const row = (await q.executeTakeFirst()) as ReplayRow | undefined;
  if (!row) return "unknown";
  if (Number(row.project_id) !== projectId) return "foreign";

  let added = false;
  if (segment) {
    if (Number(row.size_bytes) + segment.size > input.maxReplaySize) return "too_large";
    const inserted = await tx
      .insertInto("replay_segments")
      .values({
        project_id: projectId,
        replay_id: replayId,
        segment_id: segment.segmentId,
        blob_key: segment.blobKey,
        size: segment.size,
        raw_size: segment.rawSize,
        started_at: segment.summary.startedAt ?? startGuess,
        ended_at: segment.summary.endedAt ?? endGuess,
        received_at: input.receivedAt,
      })
      .onConflict((oc) => oc.columns(["replay_id", "segment_id"]).doNothing())
      .executeTakeFirst();
    added = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    if (!added && !event) return "duplicate";
  }

  if (event?.errorIds.length) {
    await tx
      .insertInto("replay_errors")
      .values(event.errorIds.map((id) => ({ project_id: projectId, replay_id: replayId, event_id: id, issue_id: null, timestamp: null })))
      .onConflict((oc) => oc.columns(["replay_id", "event_id"]).doNothing())
      .execute();
    // Errors the replay names that were digested before it (buffer mode sends the error first): their issues.
    await tx
      .updateTable("replay_errors")
      .set((eb) => ({
        issue_id: eb
          .selectFrom("events")
          .select("events.issue_id")
          .where("events.project_id", "=", projectId)
          .whereRef("events.event_id", "=", "replay_errors.event_id")
          .limit(1),
      }))
      .where("replay_id", "=", replayId)
      .where("issue_id", "is", null)
      .where("event_id", "in", event.errorIds)
      .execute();
  }
  const errors = await countReplayErrors(tx, replayId);
  const urls = union(union(parseList(row.urls), event?.urls ?? []), segment && added ? segment.summary.urls : []);
  const fill: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(firstValues(event))) if (v != null && (row as Record<string, unknown>)[k] == null) fill[k] = v;
  const s = added && segment ? segment.summary : undefined;
  await tx
    .updateTable("replays")
    .set({
      ...fill,
      started_at: Math.min(Number(row.started_at), startGuess),
      finished_at: Math.max(Number(row.finished_at), endGuess),
      received_at: Math.max(Number(row.received_at), input.receivedAt),
      urls: json(urls),
      trace_ids: json(union(parseList(row.trace_ids), event?.traceIds ?? [])),
      tags: event ? mergeTags(row.tags, event.tags) : row.tags,
      count_segments: Number(row.count_segments) + (added ? 1 : 0),
      count_errors: errors,
      count_urls: urls.length,
      count_clicks: Number(row.count_clicks) + (s?.clicks ?? 0),
      count_dead_clicks: Number(row.count_dead_clicks) + (s?.deadClicks ?? 0),
      count_rage_clicks: Number(row.count_rage_clicks) + (s?.rageClicks ?? 0),
      activity: activityScore(errors, urls.length),
      size_bytes: Number(row.size_bytes) + (added && segment ? segment.size : 0),
    })
    .where("id", "=", row.id)
    .execute();
  return added || !segment ? "stored" : "duplicate";
}

async function countReplayErrors(tx: Tx, replayId: string): Promise<number> {
  const r = await tx
    .selectFrom("replay_errors")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("replay_id", "=", replayId)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/**
 * An error event that carries a replay id (digest): linked, with its issue, and the replay's error
 * count brought up to date when the replay is already here (else when its first segment arrives).
 */
export async function linkReplayError(
  tx: Tx,
  link: { projectId: number; replayId: string; eventId: string; issueId: number; timestamp: number },
): Promise<void> {
  await tx
    .insertInto("replay_errors")
    .values({
      project_id: link.projectId,
      replay_id: link.replayId,
      event_id: link.eventId,
      issue_id: link.issueId,
      timestamp: link.timestamp,
    })
    .onConflict((oc) =>
      oc.columns(["replay_id", "event_id"]).doUpdateSet({ issue_id: link.issueId, timestamp: link.timestamp, project_id: link.projectId }),
    )
    .execute();
  const errors = await countReplayErrors(tx, link.replayId);
  const replay = await tx.selectFrom("replays").select(["id", "count_urls"]).where("replay_id", "=", link.replayId).executeTakeFirst();
  if (!replay) return;
  await tx
    .updateTable("replays")
    .set({ count_errors: errors, activity: activityScore(errors, Number(replay.count_urls)) })
    .where("id", "=", replay.id)
    .execute();
}

export async function getReplay(db: Db, replayId: string): Promise<ReplayRow | undefined> {
  return (await db.kysely.selectFrom("replays").selectAll().where("replay_id", "=", replayId).executeTakeFirst()) as ReplayRow | undefined;
}

export interface SegmentRow {
  segmentId: number;
  blobKey: string;
  size: number;
  rawSize: number;
  startedAt: number;
  endedAt: number;
}

/** A replay's segments in order, `offset`/`limit` for Sentry's paginated download. */
export async function listSegments(db: Db, replayId: string, page: { offset: number; limit: number }): Promise<SegmentRow[]> {
  const rows = await db.kysely
    .selectFrom("replay_segments")
    .select(["segment_id", "blob_key", "size", "raw_size", "started_at", "ended_at"])
    .where("replay_id", "=", replayId)
    .orderBy("segment_id")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  return rows.map((r) => ({
    segmentId: Number(r.segment_id),
    blobKey: r.blob_key,
    size: Number(r.size),
    rawSize: Number(r.raw_size),
    startedAt: Number(r.started_at),
    endedAt: Number(r.ended_at),
  }));
}

/** A replay's segment ids in order (the player fetches each as stored). */
export async function segmentIds(db: Db, replayId: string): Promise<number[]> {
  const rows = await db.kysely
    .selectFrom("replay_segments")
    .select("segment_id")
    .where("replay_id", "=", replayId)
    .orderBy("segment_id")
    .execute();
  return rows.map((r) => Number(r.segment_id));
}

/** One segment of a replay, or undefined. */
export async function getSegment(db: Db, replayId: string, segmentId: number): Promise<SegmentRow | undefined> {
  const r = await db.kysely
    .selectFrom("replay_segments")
    .select(["segment_id", "blob_key", "size", "raw_size", "started_at", "ended_at"])
    .where("replay_id", "=", replayId)
    .where("segment_id", "=", segmentId)
    .executeTakeFirst();
  return r
    ? {
        segmentId: Number(r.segment_id),
        blobKey: r.blob_key,
        size: Number(r.size),
        rawSize: Number(r.raw_size),
        startedAt: Number(r.started_at),
        endedAt: Number(r.ended_at),
      }
    : undefined;
}

/** Removes a replay's rows and answers its blob keys (the caller deletes the blobs after the commit). */
export async function deleteReplayRows(tx: Tx, replayId: string): Promise<string[]> {
  const keys = await tx.selectFrom("replay_segments").select("blob_key").where("replay_id", "=", replayId).execute();
  await tx.deleteFrom("replay_segments").where("replay_id", "=", replayId).execute();
  await tx.deleteFrom("replay_errors").where("replay_id", "=", replayId).execute();
  await tx.deleteFrom("replays").where("replay_id", "=", replayId).execute();
  return keys.map((k) => k.blob_key);
}
