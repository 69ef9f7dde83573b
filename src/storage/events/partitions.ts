/**
 * PostgreSQL only: `events` is partitioned by `received_at` (migration 0025), one partition per
 * week plus a DEFAULT partition, so retention can drop a whole week instead of deleting its rows
 * one by one (docs/scaling.md, "Events partitioned by time on PostgreSQL").
 *
 * - Weekly partitions are created ahead of time (`ensureEventPartitions`, every retention run).
 * - A week is dropped in two steps: a short transaction detaches it and moves the rows that must
 *   stay (each issue's first and latest event) back into `events`, where they land in DEFAULT;
 *   then the dedupe keys and attachments of the rows left in the detached table are deleted in
 *   small transactions and the table is dropped. A run interrupted between the steps leaves a
 *   detached table holding only doomed rows; the next run finishes it (`listDetachedEventPartitions`).
 */
import { type Kysely, sql } from "kysely";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import { deleteEventSidecars } from "./retention";

const DAY = 24 * 3600 * 1000;

/** The span of one partition. */
export const EVENT_PARTITION_MS = 7 * DAY;

/** Weeks created beyond the current one: retention runs every few minutes, so this is slack for a stopped worker. */
export const EVENT_PARTITIONS_AHEAD = 4;

/** 1970-01-05 was a Monday: weeks run Monday 00:00 UTC to Monday 00:00 UTC. */
const MONDAY = 4 * DAY;

const PREFIX = "events_w";

/** Rows no weekly partition covers: survivors of dropped weeks, and anything outside the created weeks. */
export const DEFAULT_PARTITION = "events_default";

/**
 * Storage parameters of every partition: rows up to a heap page stay whole (the payload is
 * compressed already; migration 0028 says what the default cost).
 */
const PARTITION_STORAGE = sql.raw("toast_tuple_target = 8160");

/** DDL on `events` waits at most this long for its lock, so a long read never queues ingest behind it. */
const LOCK_TIMEOUT = "5s";

export interface EventPartition {
  name: string;
  /** epoch ms, inclusive */
  from: number;
  /** epoch ms, exclusive */
  to: number;
}

/** The start of the week holding `ms`. */
export function weekStart(ms: number): number {
  return Math.floor((ms - MONDAY) / EVENT_PARTITION_MS) * EVENT_PARTITION_MS + MONDAY;
}

/** `events_w20260601`: the week's first day, so names sort by time. */
export function partitionName(start: number): string {
  return PREFIX + new Date(start).toISOString().slice(0, 10).replaceAll("-", "");
}

function isLockTimeout(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === "55P03";
}

/**
 * Creates the partition of the week starting at `start` unless it exists. A week that already has
 * rows in DEFAULT is left to DEFAULT: creating its partition would fail (PostgreSQL refuses a new
 * partition whose range DEFAULT already holds rows of), and those rows are deleted row by row.
 * (A row landing in DEFAULT between the check and the CREATE fails the CREATE and so this run;
 * the next run sees the row and skips the week. That needs a week already missing its partition.)
 */
export async function createWeekPartition<DB>(k: Kysely<DB>, start: number): Promise<boolean> {
  const name = partitionName(start);
  const end = start + EVENT_PARTITION_MS;
  const found = await sql<{ found: boolean }>`SELECT to_regclass(${name}) IS NOT NULL AS found`.execute(k);
  if (found.rows[0]?.found) return false;
  const stray =
    await sql`SELECT 1 FROM ${sql.table(DEFAULT_PARTITION)} WHERE received_at >= ${start} AND received_at < ${end} LIMIT 1`.execute(k);
  if (stray.rows.length > 0) return false;
  const range = sql`FOR VALUES FROM (${sql.lit(start)}) TO (${sql.lit(end)})`;
  await sql`CREATE TABLE ${sql.table(name)} PARTITION OF events ${range} WITH (${PARTITION_STORAGE})`.execute(k);
  return true;
}

/** The partitions of the week holding `now` and the `ahead` weeks after it; returns how many were created. */
export async function createEventPartitions<DB>(k: Kysely<DB>, now: number, ahead = EVENT_PARTITIONS_AHEAD): Promise<number> {
  let created = 0;
  for (let i = 0; i <= ahead; i++) {
    if (await createWeekPartition(k, weekStart(now) + i * EVENT_PARTITION_MS)) created += 1;
  }
  return created;
}

/**
 * Makes sure this week's and the next weeks' partitions exist (idempotent; no-op on SQLite).
 * Returns how many were created; 0 too when the lock on `events` was not granted in time (the
 * next run retries, and until then new rows land in DEFAULT, which is correct, only slower to expire).
 */
export async function ensureEventPartitions(db: Db, now: number, ahead = EVENT_PARTITIONS_AHEAD): Promise<number> {
  if (db.dialect !== "postgres") return 0;
  try {
    return await db.kysely.transaction().execute(async (tx) => {
      await sql`SET LOCAL lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(tx);
      return createEventPartitions(tx, now, ahead);
    });
  } catch (err) {
    if (isLockTimeout(err)) return 0;
    throw err;
  }
}

/** "FOR VALUES FROM ('1780272000000') TO ('1780876800000')" → its bounds; null for DEFAULT. */
function parseBound(bound: string): { from: number; to: number } | null {
  const m = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(bound);
  return m ? { from: Number(m[1]), to: Number(m[2]) } : null;
}

/** Every partition attached to `events`, DEFAULT included, with its bound expression. */
async function attachedPartitions<DB>(k: Kysely<DB>): Promise<Array<{ name: string; bound: string }>> {
  const r = await sql<{ name: string; bound: string }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass`.execute(k);
  return r.rows;
}

/** Gives the partitions that exist (DEFAULT included) the storage parameters new weeks get. */
export async function applyPartitionStorage<DB>(k: Kysely<DB>): Promise<void> {
  for (const { name } of await attachedPartitions(k)) await sql`ALTER TABLE ${sql.table(name)} SET (${PARTITION_STORAGE})`.execute(k);
}

/** The weekly partitions attached to `events`, oldest first (DEFAULT not included). */
export async function listEventPartitions(db: Db): Promise<EventPartition[]> {
  if (db.dialect !== "postgres") return [];
  const out: EventPartition[] = [];
  for (const row of await attachedPartitions(db.kysely)) {
    const b = parseBound(row.bound);
    if (b) out.push({ name: row.name, ...b });
  }
  return out.sort((a, b) => a.from - b.from);
}

/** Joined with `issues i`: the event row `p` is its issue's first or latest event. */
const KEPT = sql`i.id = p.issue_id AND (i.first_event_id = p.event_id OR i.last_event_id = p.event_id)`;

/**
 * Transaction-level advisory lock between a detach and the writes that can point an issue at an
 * event of an old week (unmerge: the split-off issue's first and latest events are the moved
 * events' oldest and newest). The digest cannot: a new event lands in the current week.
 */
const OLD_EVENT_POINTERS_KEY = 0x65726570; // "erep"

/**
 * Call at the start of a PostgreSQL transaction that may make an old event an issue's first or
 * latest: it waits while a week is being detached (its survivors are being chosen) and the detach
 * waits for it. Shared: such writes do not wait for one another. No-op on SQLite (one writer).
 */
export async function guardOldEventPointers(db: Db, tx: Tx): Promise<void> {
  if (db.dialect !== "postgres") return;
  await sql`SELECT pg_advisory_xact_lock_shared(${OLD_EVENT_POINTERS_KEY})`.execute(tx);
}

/**
 * The other side, for a PostgreSQL transaction that chooses which old events survive (each
 * issue's first and latest) and then deletes the rest: it waits for guarded writes in progress,
 * and they wait for it, so none points an issue at a row between the choice and the delete.
 */
export async function freezeOldEventPointers(db: Db, tx: Tx): Promise<void> {
  if (db.dialect !== "postgres") return;
  await sql`SELECT pg_advisory_xact_lock(${OLD_EVENT_POINTERS_KEY})`.execute(tx);
}

/**
 * Detaches a weekly partition and moves its rows that must stay (each issue's first and latest
 * event, the same rule as the row-wise deletes) back into `events`, where DEFAULT takes them:
 * no partition covers that week any more. The detached table then holds only rows to delete.
 *
 * DETACH locks `events` exclusively until commit, so the week is scanned for survivors before
 * it, while `events` stays available; under the lock they are fetched by id and checked again.
 * The writes that could make another row of the week a survivor in between (unmerge) wait for
 * the whole transaction (`guardOldEventPointers`), so none is lost. `afterScan` lets a test act in
 * that interval. Returns how many rows stayed, or null when a lock was not granted in time (the
 * next run retries).
 */
export async function detachEventPartition(db: Db, name: string, opts: { afterScan?: () => Promise<void> } = {}): Promise<number | null> {
  const t = sql.table(name);
  try {
    return await db.kysely.transaction().execute(async (tx) => {
      await sql`SET LOCAL lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(tx);
      await freezeOldEventPointers(db, tx);
      const candidates = await sql<{ id: number }>`SELECT p.id FROM ${t} p JOIN issues i ON ${KEPT}`.execute(tx);
      const ids = candidates.rows.map((r) => Number(r.id));
      await opts.afterScan?.();
      // Not CONCURRENTLY: that form cannot run inside a transaction, and the move must be atomic with it.
      await sql`ALTER TABLE events DETACH PARTITION ${t}`.execute(tx);
      if (ids.length === 0) return 0;
      const moved = await sql`
        WITH kept AS (
          DELETE FROM ${t} p USING issues i WHERE p.id = ANY(${ids}::bigint[]) AND ${KEPT}
          RETURNING p.*
        )
        INSERT INTO events SELECT * FROM kept`.execute(tx);
      return Number(moved.numAffectedRows ?? 0);
    });
  } catch (err) {
    if (isLockTimeout(err)) return null;
    throw err;
  }
}

/** Weekly tables detached from `events` and not yet dropped (an earlier run may have stopped midway). */
export async function listDetachedEventPartitions(db: Db): Promise<string[]> {
  if (db.dialect !== "postgres") return [];
  const r = await sql<{ name: string }>`
    SELECT relname AS name FROM pg_class
    WHERE relkind = 'r' AND NOT relispartition AND relname ~ ${`^${PREFIX}[0-9]{8}$`} AND pg_table_is_visible(oid)
    ORDER BY relname`.execute(db.kysely);
  return r.rows.map((x) => x.name);
}

/**
 * Deletes the dedupe keys and attachments of up to `limit` rows of a detached table, in id order
 * after `afterId`. Returns how many rows it covered and where to continue (null: done). Deleting
 * an absent key is a no-op, so a run that restarts from the beginning is harmless.
 */
export async function clearDetachedChunk(
  tx: Tx,
  q: { name: string; afterId: number; limit: number },
): Promise<{ rows: number; cursor: number | null }> {
  const r = await sql<{ id: number; project_id: number; event_id: string }>`
    SELECT id, project_id, event_id FROM ${sql.table(q.name)} WHERE id > ${q.afterId} ORDER BY id LIMIT ${q.limit}`.execute(tx);
  await deleteEventSidecars(tx, r.rows);
  const last = r.rows.at(-1);
  return { rows: r.rows.length, cursor: r.rows.length < q.limit || !last ? null : Number(last.id) };
}

/** Drops a detached weekly table; refuses a table still attached to `events` (that would drop live rows). */
export async function dropDetachedEventPartition(db: Db, name: string): Promise<boolean> {
  const r = await sql<{ attached: boolean }>`SELECT relispartition AS attached FROM pg_class WHERE oid = to_regclass(${name})`.execute(
    db.kysely,
  );
  const row = r.rows[0];
  if (!row || row.attached) return false;
  await sql`DROP TABLE ${sql.table(name)}`.execute(db.kysely);
  return true;
}
