/**
 * Release health storage: hourly session aggregates per project, release and environment, the
 * per-session state that keeps updates idempotent, and distinct users per bucket. The rules live
 * in src/core/sessions.ts; this file only reads and writes.
 */
import { sql } from "kysely";
import { isSessionClass, type SessionClass, type SessionDelta } from "../../core/sessions";
import type { Db } from "../db";
import type { Tx } from "../dialect";

export interface SessionBucketKey {
  projectId: number;
  release: string;
  environment: string;
  /** start of the hour, epoch ms */
  hour: number;
}

export interface SessionState extends SessionBucketKey {
  status: SessionClass;
}

/** The stored states of these sessions of a project. */
export async function getSessionStates(tx: Tx, projectId: number, sids: string[]): Promise<Map<string, SessionState>> {
  const out = new Map<string, SessionState>();
  if (sids.length === 0) return out;
  const rows = await tx
    .selectFrom("session_states")
    .select(["sid", "release", "environment", "hour", "status"])
    .where("project_id", "=", projectId)
    .where("sid", "in", sids)
    .execute();
  for (const r of rows) {
    if (!isSessionClass(r.status)) continue;
    out.set(r.sid, { projectId, release: r.release, environment: r.environment, hour: Number(r.hour), status: r.status });
  }
  return out;
}

export async function putSessionState(tx: Tx, sid: string, s: SessionState, now: number): Promise<void> {
  await tx
    .insertInto("session_states")
    .values({
      project_id: s.projectId,
      sid,
      release: s.release,
      environment: s.environment,
      hour: s.hour,
      status: s.status,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["project_id", "sid"]).doUpdateSet({ status: s.status, updated_at: now }))
    .execute();
}

/** Adds deltas to buckets (created at zero when missing). */
export async function addSessionCounts(tx: Tx, rows: Array<SessionBucketKey & { delta: SessionDelta; users: number }>): Promise<void> {
  for (const r of rows) {
    const d = r.delta;
    await tx
      .insertInto("session_aggregates")
      .values({
        project_id: r.projectId,
        release: r.release,
        environment: r.environment,
        hour: r.hour,
        total: d.total,
        ok: d.ok,
        errored: d.errored,
        unhandled: d.unhandled,
        abnormal: d.abnormal,
        crashed: d.crashed,
        users: r.users,
      })
      .onConflict((oc) =>
        oc.columns(["project_id", "release", "environment", "hour"]).doUpdateSet({
          total: sql<number>`session_aggregates.total + excluded.total`,
          ok: sql<number>`session_aggregates.ok + excluded.ok`,
          errored: sql<number>`session_aggregates.errored + excluded.errored`,
          unhandled: sql<number>`session_aggregates.unhandled + excluded.unhandled`,
          abnormal: sql<number>`session_aggregates.abnormal + excluded.abnormal`,
          crashed: sql<number>`session_aggregates.crashed + excluded.crashed`,
          users: sql<number>`session_aggregates.users + excluded.users`,
        }),
      )
      .execute();
  }
}

/** Records a distinct user of a bucket; true when it had not been seen there yet. */
export async function addSessionUser(tx: Tx, key: SessionBucketKey, didHash: string): Promise<boolean> {
  const res = await tx
    .insertInto("session_users")
    .values({ project_id: key.projectId, release: key.release, environment: key.environment, hour: key.hour, did_hash: didHash })
    .onConflict((oc) => oc.columns(["project_id", "release", "environment", "hour", "did_hash"]).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Marks a user of a bucket as crashed (recording the user when the bucket had not seen them). */
export async function markSessionUserCrashed(tx: Tx, key: SessionBucketKey, didHash: string): Promise<void> {
  await tx
    .insertInto("session_users")
    .values({
      project_id: key.projectId,
      release: key.release,
      environment: key.environment,
      hour: key.hour,
      did_hash: didHash,
      crashed: 1,
    })
    .onConflict((oc) => oc.columns(["project_id", "release", "environment", "hour", "did_hash"]).doUpdateSet({ crashed: 1 }))
    .execute();
}

/**
 * A release's session totals in one project, all hours summed (what the release page shows, per
 * project): the digest's own hourly counters, read by primary key. `environments` empty = all.
 */
export async function releaseSessionTotals(
  tx: Tx,
  projectId: number,
  release: string,
  environments: string[],
): Promise<{ total: number; crashed: number }> {
  let q = tx
    .selectFrom("session_aggregates")
    .select((eb) => [eb.fn.sum<number>("total").as("total"), eb.fn.sum<number>("crashed").as("crashed")])
    .where("project_id", "=", projectId)
    .where("release", "=", release);
  if (environments.length > 0) q = q.where("environment", "in", environments);
  const r = await q.executeTakeFirst();
  return { total: Number(r?.total ?? 0), crashed: Number(r?.crashed ?? 0) };
}

/** Forgets session states not updated since `before` (sessions that old are no longer accepted). */
export async function pruneSessionStates(tx: Tx, before: number): Promise<number> {
  const res = await tx.deleteFrom("session_states").where("updated_at", "<", before).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}

export interface SessionAggregateRow extends SessionBucketKey {
  total: number;
  ok: number;
  errored: number;
  unhandled: number;
  abnormal: number;
  crashed: number;
  users: number;
}

/** Aggregates of these projects with `from <= hour < to`, oldest first. */
export async function listSessionAggregates(
  db: Db,
  q: { projectIds: number[]; from: number; to: number; release?: string },
): Promise<SessionAggregateRow[]> {
  if (q.projectIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("session_aggregates")
    .selectAll()
    .where("project_id", "in", q.projectIds)
    .where("hour", ">=", q.from)
    .where("hour", "<", q.to);
  if (q.release !== undefined) query = query.where("release", "=", q.release);
  const rows = await query.orderBy("hour").orderBy("project_id").orderBy("release").orderBy("environment").execute();
  return rows.map((r) => ({
    projectId: Number(r.project_id),
    release: r.release,
    environment: r.environment,
    hour: Number(r.hour),
    total: Number(r.total),
    ok: Number(r.ok),
    errored: Number(r.errored),
    unhandled: Number(r.unhandled),
    abnormal: Number(r.abnormal),
    crashed: Number(r.crashed),
    users: Number(r.users),
  }));
}
