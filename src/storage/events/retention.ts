/**
 * The queries of the retention job (src/pipeline/retention.ts): which events are past their age,
 * how many events each issue stores, and chunked deletes that never touch an issue's first or
 * latest event (`issues.first_event_id` / `last_event_id`). Issue counters are never changed.
 */
import type { Db } from "../db";
import { isPostgres, type Tx } from "../dialect";

/**
 * Deletes events by row id together with what is keyed by them (deleteEventSidecars). The
 * received-time range lets PostgreSQL look only in the partitions that can hold the rows.
 */
export async function deleteEventRows(
  tx: Tx,
  rows: Array<{ id: number; project_id: number; event_id: string; received_at: number }>,
): Promise<void> {
  if (rows.length === 0) return;
  const times = rows.map((r) => Number(r.received_at));
  await tx
    .deleteFrom("events")
    .where(
      "id",
      "in",
      rows.map((r) => Number(r.id)),
    )
    .where("received_at", ">=", Math.min(...times))
    .where("received_at", "<=", Math.max(...times))
    .execute();
  await deleteEventSidecars(tx, rows);
}

/**
 * Deletes what is keyed by (project, event id) of deleted events: their attachments (unreachable
 * bytes otherwise) and, on PostgreSQL, their dedupe keys in `event_keys` (kept, they would make a
 * re-sent event a duplicate of nothing; SQLite's unique constraint goes with the row itself).
 */
export async function deleteEventSidecars(tx: Tx, rows: Array<{ project_id: number; event_id: string }>): Promise<void> {
  const byProject = new Map<number, string[]>();
  for (const r of rows) byProject.set(Number(r.project_id), [...(byProject.get(Number(r.project_id)) ?? []), r.event_id]);
  const keys = isPostgres(tx);
  for (const [projectId, eventIds] of byProject) {
    await tx.deleteFrom("attachments").where("project_id", "=", projectId).where("event_id", "in", eventIds).execute();
    if (keys) await tx.deleteFrom("event_keys").where("project_id", "=", projectId).where("event_id", "in", eventIds).execute();
  }
}

export interface ProjectRetentionRow {
  id: number;
  settings: Record<string, unknown>;
}

export async function listProjectsForRetention(db: Db): Promise<ProjectRetentionRow[]> {
  const rows = await db.kysely.selectFrom("projects").select(["id", "settings"]).orderBy("id").execute();
  return rows.map((r) => ({ id: Number(r.id), settings: parseSettings(r.settings) }));
}

function parseSettings(s: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export interface EventCursor {
  receivedAt: number;
  id: number;
}

/**
 * Deletes up to `limit` events of the project received before `cutoff`, oldest first, except
 * each issue's first and latest event. Keyset pagination from `cursor` means the kept events are
 * stepped over once per run, not once per chunk. Events whose issue is gone are deleted too.
 * Returns the number deleted and where to continue (null: nothing more before the cutoff).
 */
export async function deleteExpiredChunk(
  tx: Tx,
  q: { projectId: number; cutoff: number; cursor: EventCursor | null; limit: number },
): Promise<{ deleted: number; cursor: EventCursor | null }> {
  const cursor = q.cursor;
  const rows = await tx
    .selectFrom("events as e")
    .leftJoin("issues as i", "i.id", "e.issue_id")
    .select(["e.id", "e.received_at", "e.project_id", "e.event_id"])
    .where("e.project_id", "=", q.projectId)
    .where("e.received_at", "<", q.cutoff)
    .$if(cursor !== null, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb("e.received_at", ">", cursor?.receivedAt ?? 0),
          eb.and([eb("e.received_at", "=", cursor?.receivedAt ?? 0), eb("e.id", ">", cursor?.id ?? 0)]),
        ]),
      ),
    )
    .where((eb) => eb.or([eb("i.first_event_id", "is", null), eb("i.first_event_id", "<>", eb.ref("e.event_id"))]))
    .where((eb) => eb.or([eb("i.last_event_id", "is", null), eb("i.last_event_id", "<>", eb.ref("e.event_id"))]))
    .orderBy("e.received_at")
    .orderBy("e.id")
    .limit(q.limit)
    .execute();
  if (rows.length === 0) return { deleted: 0, cursor: null };
  await deleteEventRows(tx, rows);
  const last = rows[rows.length - 1] as { id: number; received_at: number };
  return { deleted: rows.length, cursor: rows.length < q.limit ? null : { receivedAt: Number(last.received_at), id: Number(last.id) } };
}

export async function countProjectEvents(db: Db, projectId: number): Promise<number> {
  const row = await db.kysely
    .selectFrom("events")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export interface IssueStored {
  issueId: number;
  /** events the issue stores */
  stored: number;
  /** how many of them retention may never delete (first and latest event) */
  kept: number;
}

/** Stored events per issue of a project (one grouped scan per retention run). */
export async function storedEventsPerIssue(db: Db, projectId: number): Promise<IssueStored[]> {
  const rows = await db.kysely
    .selectFrom("events")
    .select((eb) => ["issue_id", eb.fn.countAll<number>().as("n")])
    .where("project_id", "=", projectId)
    .groupBy("issue_id")
    .execute();
  return rows.map((r) => {
    const stored = Number(r.n);
    return { issueId: Number(r.issue_id), stored, kept: Math.min(stored, 2) };
  });
}

/** Deletes up to `limit` of an issue's oldest events, never its first or latest one. */
export async function deleteOldestOfIssue(tx: Tx, issueId: number, limit: number): Promise<number> {
  const issue = await tx.selectFrom("issues").select(["first_event_id", "last_event_id"]).where("id", "=", issueId).executeTakeFirst();
  const keep = [issue?.first_event_id, issue?.last_event_id].filter((id): id is string => typeof id === "string");
  const rows = await tx
    .selectFrom("events")
    .select(["id", "project_id", "event_id", "received_at"])
    .where("issue_id", "=", issueId)
    .$if(keep.length > 0, (qb) => qb.where("event_id", "not in", keep))
    .orderBy("received_at")
    .orderBy("id")
    .limit(limit)
    .execute();
  if (rows.length === 0) return 0;
  await deleteEventRows(tx, rows);
  return rows.length;
}
