/**
 * Reads for Sentry's REST endpoints that the screens do not need (issue 10): events of an issue or
 * a project with payloads (`?full=true`), every value of an issue's tag, an issue's hashes.
 */
import type { Db } from "../db";
import { type EventListCursor, rowColumns, type StoredEvent, toStored } from "./events";

/** Newest first, keyset on (received_at, id); one of issueId / projectId. */
export async function listEventsWithPayload(
  db: Db,
  q: { issueId?: number; projectId?: number; limit: number; cursor?: EventListCursor | null },
): Promise<{ items: StoredEvent[]; nextCursor: EventListCursor | null }> {
  let query = db.kysely.selectFrom("events").select([...rowColumns, "payload"]);
  if (q.issueId !== undefined) query = query.where("issue_id", "=", q.issueId);
  if (q.projectId !== undefined) query = query.where("project_id", "=", q.projectId);
  const cursor = q.cursor;
  if (cursor)
    query = query.where((eb) =>
      eb.or([eb("received_at", "<", cursor.receivedAt), eb.and([eb("received_at", "=", cursor.receivedAt), eb("id", "<", cursor.id)])]),
    );
  const rows = await query
    .orderBy("received_at", "desc")
    .orderBy("id", "desc")
    .limit(q.limit + 1)
    .execute();
  const items = rows.slice(0, q.limit).map(toStored);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > q.limit && last ? { receivedAt: last.receivedAt, id: last.id } : null };
}

/** Every value of one tag of an issue, most frequent first (bounded). */
export async function issueTagValues(
  db: Db,
  issueId: number,
  key: string,
  limit: number,
): Promise<Array<{ value: string; count: number; lastSeen: number }>> {
  const rows = await db.kysely
    .selectFrom("issue_tag_values")
    .select(["value", "count", "last_seen"])
    .where("issue_id", "=", issueId)
    .where("key", "=", key)
    .orderBy("count", "desc")
    .orderBy("value")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ value: r.value, count: Number(r.count), lastSeen: Number(r.last_seen) }));
}

export async function issueHashes(db: Db, issueId: number): Promise<Array<{ hash: string; groupingVersion: string }>> {
  const rows = await db.kysely
    .selectFrom("issue_hashes")
    .select(["hash", "grouping_version"])
    .where("issue_id", "=", issueId)
    .orderBy("hash")
    .limit(1000)
    .execute();
  return rows.map((r) => ({ hash: r.hash, groupingVersion: r.grouping_version }));
}
