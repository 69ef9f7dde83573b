/**
 * Replay retention, run with the retention job: replays older than REPLAY_RETENTION_DAYS (by their
 * last segment) go — rows in short transactions, then their blobs. Then, at most once a day per
 * process, the orphan sweep: blobs of replays that have no row (a project deleted while its files
 * were being removed, a segment refused in the digest's transaction, a crash between a blob's
 * write and its row) older than an hour — a younger one may belong to a digest in flight.
 */
import type { BlobStore } from "../../storage/blobs/blob-store";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { existingReplayIds, expiredReplayIds } from "../../storage/replays/replay-retention";
import { deleteReplayRows } from "../../storage/replays/replays";

const DAY = 24 * 3600 * 1000;
const ORPHAN_MIN_AGE_MS = 3600 * 1000;
const SWEEP_EVERY_MS = DAY;
let lastSweep = Number.NEGATIVE_INFINITY;

export interface ReplayRetention {
  now: number;
  days: number;
  batchSize: number;
  pause: () => Promise<void>;
  signal?: AbortSignal;
  /** run the orphan sweep regardless of when it last ran (tests) */
  sweepNow?: boolean;
}

/** Deletes expired replays; answers how many replays and orphan blobs went. */
export async function expireReplays(db: Db, blobs: BlobStore, o: ReplayRetention): Promise<{ replays: number; orphans: number }> {
  const cutoff = o.now - o.days * DAY;
  const batch = Math.max(1, Math.min(o.batchSize, 100));
  let replays = 0;
  for (;;) {
    if (o.signal?.aborted) break;
    const ids = await expiredReplayIds(db, cutoff, batch);
    if (ids.length === 0) break;
    const keys = await writeTx(db, async (tx) => {
      const out: string[] = [];
      for (const id of ids) out.push(...(await deleteReplayRows(tx, id)));
      return out;
    });
    await blobs.delete(keys);
    replays += ids.length;
    if (ids.length < batch) break;
    await o.pause();
  }
  let orphans = 0;
  if (o.sweepNow || o.now - lastSweep >= SWEEP_EVERY_MS) {
    lastSweep = o.now;
    orphans = await sweepOrphans(db, blobs, o.now);
  }
  return { replays, orphans };
}

/** Blobs under replays/<project>/<replay>/ whose replay has no row, older than an hour. */
async function sweepOrphans(db: Db, blobs: BlobStore, now: number): Promise<number> {
  let removed = 0;
  let pending = new Map<string, { projectId: number; replayId: string; newest: number }>();
  const flush = async () => {
    const byProject = new Map<number, string[]>();
    for (const v of pending.values()) byProject.set(v.projectId, [...(byProject.get(v.projectId) ?? []), v.replayId]);
    for (const [projectId, ids] of byProject) {
      const alive = await existingReplayIds(db, projectId, ids);
      for (const id of ids) {
        const v = pending.get(`${projectId}/${id}`);
        if (alive.has(id) || !v || now - v.newest < ORPHAN_MIN_AGE_MS) continue;
        removed += await blobs.deletePrefix(`replays/${projectId}/${id}/`);
      }
    }
    pending = new Map();
  };
  for await (const b of blobs.list("replays/")) {
    const [, project, replayId] = b.key.split("/");
    const projectId = Number(project);
    if (!replayId || !Number.isSafeInteger(projectId)) continue;
    const k = `${projectId}/${replayId}`;
    const seen = pending.get(k);
    pending.set(k, { projectId, replayId, newest: Math.max(seen?.newest ?? 0, b.createdAt) });
    if (pending.size >= 500) await flush();
  }
  await flush();
  return removed;
}
