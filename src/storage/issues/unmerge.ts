/**
 * Unmerge by grouping hash (Sentry's "unmerge"): the hash, and the stored events that were grouped
 * by it, move to a new issue; later events of the hash land there. Counters move with the events
 * (users: the moved events' users join the new issue and leave the old one unless one of its
 * remaining events has them too). Statistics move event by event. The caller holds the old
 * issue's lock (src/storage/issues/issue-locks.ts).
 */
import { sql } from "kysely";
import type { Tx } from "../dialect";
import { decodePayload } from "../events/events";
import { moveReplayErrorLinks } from "./lifecycle";
import { IssueStatsBatch, writeIssueStats } from "./stats";

export interface IssueEventForSplit {
  id: number;
  eventId: string;
  receivedAt: number;
  release: string | null;
  userKey: string | null;
  digest: string | null;
  title: string;
  culprit: string;
  level: string;
  event: Record<string, unknown>;
}

/** A page of an issue's stored events with their payloads, by row id. */
export async function issueEventsAfter(tx: Tx, issueId: number, afterId: number, limit: number): Promise<IssueEventForSplit[]> {
  const rows = await tx
    .selectFrom("events")
    .select(["id", "event_id", "received_at", "release", "user_key", "digest", "title", "culprit", "level", "payload"])
    .where("issue_id", "=", issueId)
    .where("id", ">", afterId)
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    eventId: r.event_id,
    receivedAt: Number(r.received_at),
    release: r.release,
    userKey: r.user_key,
    digest: r.digest,
    title: r.title,
    culprit: r.culprit,
    level: r.level,
    event: decodePayload(r.payload),
  }));
}

/** The hash row → the new issue (only if it still belongs to `fromIssueId`). */
export async function moveIssueHash(tx: Tx, projectId: number, hash: string, fromIssueId: number, toIssueId: number): Promise<boolean> {
  const r = await tx
    .updateTable("issue_hashes")
    .set({ issue_id: toIssueId })
    .where("project_id", "=", projectId)
    .where("hash", "=", hash)
    .where("issue_id", "=", fromIssueId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Moves these events (all of `fromIssueId`) to `toIssueId` with their statistics, counters and
 * users. `tags(e)` gives an event's stat tags (core/search/event-tags).
 */
export async function moveEventsForSplit(
  tx: Tx,
  move: { projectId: number; fromIssueId: number; toIssueId: number },
  events: IssueEventForSplit[],
  tags: (e: IssueEventForSplit) => Array<[string, string]>,
): Promise<void> {
  if (events.length === 0) return;
  for (let i = 0; i < events.length; i += 500) {
    const ids = events.slice(i, i + 500).map((e) => e.id);
    await tx.updateTable("events").set({ issue_id: move.toIssueId }).where("id", "in", ids).execute();
    await moveReplayErrorLinks(
      tx,
      [move.fromIssueId],
      move.toIssueId,
      events.slice(i, i + 500).map((e) => e.eventId),
    );
  }
  const added = new IssueStatsBatch();
  const removed = new IssueStatsBatch();
  for (const e of events) {
    const t = tags(e);
    added.add(move.toIssueId, move.projectId, e.receivedAt, t);
    removed.add(move.fromIssueId, move.projectId, e.receivedAt, t);
  }
  await writeIssueStats(tx, added);
  await subtractIssueStats(tx, removed, move.fromIssueId);

  const users = [...new Set(events.flatMap((e) => (e.userKey ? [e.userKey] : [])))];
  for (let i = 0; i < users.length; i += 500) {
    await tx
      .insertInto("issue_users")
      .values(users.slice(i, i + 500).map((u) => ({ issue_id: move.toIssueId, user_key: u })))
      .onConflict((oc) => oc.columns(["issue_id", "user_key"]).doNothing())
      .execute();
  }
  await dropLeftUsers(tx, move.fromIssueId, users);
  const byTime = [...events].sort((a, b) => a.receivedAt - b.receivedAt || a.id - b.id);
  const first = byTime[0] as IssueEventForSplit;
  const last = byTime[byTime.length - 1] as IssueEventForSplit;
  const lastWithRelease = [...byTime].reverse().find((e) => e.release);
  await tx
    .updateTable("issues")
    .set({
      event_count: events.length,
      user_count: users.length,
      first_seen: first.receivedAt,
      last_seen: last.receivedAt,
      first_event_id: first.eventId,
      last_event_id: last.eventId,
      first_release: byTime.find((e) => e.release)?.release ?? null,
      last_release: lastWithRelease?.release ?? null,
      last_release_seen: lastWithRelease?.receivedAt ?? null,
      title: last.title,
      culprit: last.culprit,
      level: last.level,
    })
    .where("id", "=", move.toIssueId)
    .execute();
  await tx
    .updateTable("issues")
    .set((eb) => ({
      event_count: sql<number>`case when ${eb.ref("event_count")} > ${events.length} then ${eb.ref("event_count")} - ${events.length} else 0 end`,
    }))
    .where("id", "=", move.fromIssueId)
    .execute();
  await refreshSeen(tx, move.fromIssueId);
}

/**
 * The moved events' users leave the old issue unless an event it keeps has them too; its
 * user_count is its user set's size again (each user counted once, as the digest counts them).
 */
async function dropLeftUsers(tx: Tx, issueId: number, users: string[]): Promise<void> {
  for (let i = 0; i < users.length; i += 500) {
    await tx
      .deleteFrom("issue_users")
      .where("issue_id", "=", issueId)
      .where("user_key", "in", users.slice(i, i + 500))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("events")
              .select("events.id")
              .where("events.issue_id", "=", issueId)
              .whereRef("events.user_key", "=", "issue_users.user_key"),
          ),
        ),
      )
      .execute();
  }
  const n = await tx
    .selectFrom("issue_users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("issue_id", "=", issueId)
    .executeTakeFirst();
  await tx
    .updateTable("issues")
    .set({ user_count: Number(n?.n ?? 0) })
    .where("id", "=", issueId)
    .execute();
}

/** First/last seen and event ids of an issue from the events it still stores (unchanged when none). */
async function refreshSeen(tx: Tx, issueId: number): Promise<void> {
  const oldest = await tx
    .selectFrom("events")
    .select(["event_id", "received_at"])
    .where("issue_id", "=", issueId)
    .orderBy("received_at")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  const newest = await tx
    .selectFrom("events")
    .select(["event_id", "received_at"])
    .where("issue_id", "=", issueId)
    .orderBy("received_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!oldest || !newest) return;
  await tx
    .updateTable("issues")
    .set({
      first_seen: Number(oldest.received_at),
      first_event_id: oldest.event_id,
      last_seen: Number(newest.received_at),
      last_event_id: newest.event_id,
    })
    .where("id", "=", issueId)
    .execute();
}

/** Takes a batch's counts off an issue's statistics; rows that reach zero go. */
async function subtractIssueStats(tx: Tx, batch: IssueStatsBatch, issueId: number): Promise<void> {
  for (const h of batch.hourly.values()) h.count = -h.count;
  for (const v of batch.values.values()) v.count = -v.count;
  for (const k of batch.keys.values()) k.count = -k.count;
  await writeIssueStats(tx, batch);
  await tx.deleteFrom("issue_hourly").where("issue_id", "=", issueId).where("count", "<=", 0).execute();
  await tx.deleteFrom("issue_daily").where("issue_id", "=", issueId).where("count", "<=", 0).execute();
  await tx.deleteFrom("issue_tag_values").where("issue_id", "=", issueId).where("count", "<=", 0).execute();
  await tx.deleteFrom("issue_tag_keys").where("issue_id", "=", issueId).where("count", "<=", 0).execute();
}
