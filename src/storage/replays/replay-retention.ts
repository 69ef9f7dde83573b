/**
 * Replay retention (REPLAY_RETENTION_DAYS): replays whose last segment arrived before the cutoff,
 * a batch at a time, and the question the orphan sweep asks (which of these replays still exist).
 */
import type { Db } from "../db";

/** Up to `limit` replay ids last touched before `cutoff` (epoch ms). */
export async function expiredReplayIds(db: Db, cutoff: number, limit: number): Promise<string[]> {
  const rows = await db.kysely
    .selectFrom("replays")
    .select("replay_id")
    .where("received_at", "<", cutoff)
    .orderBy("received_at")
    .limit(limit)
    .execute();
  return rows.map((r) => r.replay_id);
}

/** The ids among `replayIds` that have a row in `project`. */
export async function existingReplayIds(db: Db, projectId: number, replayIds: readonly string[]): Promise<Set<string>> {
  if (replayIds.length === 0) return new Set();
  const rows = await db.kysely
    .selectFrom("replays")
    .select("replay_id")
    .where("project_id", "=", projectId)
    .where("replay_id", "in", [...replayIds])
    .execute();
  return new Set(rows.map((r) => r.replay_id));
}
