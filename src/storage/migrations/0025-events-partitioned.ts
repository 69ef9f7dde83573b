import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";
import { createEventPartitions, createWeekPartition, DEFAULT_PARTITION, EVENT_PARTITION_MS, weekStart } from "../events/partitions";

/**
 * PostgreSQL: `events` partitioned by week of `received_at`, so retention drops whole weeks
 * instead of deleting (and vacuuming) their rows (docs/scaling.md). Same columns, types and id
 * sequence, so every read is unchanged. A unique constraint on a partitioned table must include
 * the partition key, so the (project_id, event_id) dedupe moves to `event_keys`; `events` keeps a
 * plain index on the pair for lookups. The primary key becomes (id, received_at), same reason.
 *
 * The rows are copied inside the migration's transaction: on a large table this is a long,
 * exclusive step of the upgrade (the other tables stay available). Each week that holds rows gets
 * its partition first, so DEFAULT starts empty. SQLite: nothing to do.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== "postgres") return;
  const seq = await sql<{ seq: string }>`SELECT pg_get_serial_sequence('events', 'id') AS seq`.execute(db);
  const sequence = seq.rows[0]?.seq;
  if (!sequence) throw new Error("events.id has no sequence");
  await sql`ALTER TABLE events RENAME TO events_unpartitioned`.execute(db);
  // LIKE keeps names, types, NOT NULLs and defaults, the id default included (same sequence).
  await sql`CREATE TABLE events (LIKE events_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (received_at)`.execute(db);
  // Owned by the new column, or dropping the old table would drop the sequence with it.
  await sql`ALTER SEQUENCE ${sql.raw(sequence)} OWNED BY events.id`.execute(db);
  await sql`CREATE TABLE ${sql.table(DEFAULT_PARTITION)} PARTITION OF events DEFAULT`.execute(db);
  for (const start of await weeksWithRows(db)) await createWeekPartition(db, start);
  await createEventPartitions(db, Date.now());

  await sql`INSERT INTO events SELECT * FROM events_unpartitioned`.execute(db);
  await sql`
    CREATE TABLE event_keys (
      project_id bigint NOT NULL,
      event_id text NOT NULL,
      CONSTRAINT event_keys_pkey PRIMARY KEY (project_id, event_id)
    )`.execute(db);
  await sql`INSERT INTO event_keys (project_id, event_id) SELECT project_id, event_id FROM events_unpartitioned`.execute(db);
  // Frees the constraint and index names for the partitioned table.
  await sql`DROP TABLE events_unpartitioned`.execute(db);

  // Built after the copy (faster than maintaining them row by row); each partition gets its own.
  await sql`ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id, received_at)`.execute(db);
  await sql`CREATE INDEX events_project_event ON events (project_id, event_id)`.execute(db);
  await sql`CREATE INDEX events_issue_received ON events (issue_id, received_at)`.execute(db);
  await sql`CREATE INDEX events_digest ON events (project_id, digest)`.execute(db);
  await sql`ANALYZE events`.execute(db);
}

/** The start of every week the old table has rows in. */
async function weeksWithRows(db: Kysely<unknown>): Promise<number[]> {
  const r = await sql<{ received_at: number }>`
    SELECT min(received_at) AS received_at FROM events_unpartitioned
    GROUP BY floor((received_at - ${weekStart(0)})::numeric / ${EVENT_PARTITION_MS})`.execute(db);
  return r.rows.map((x) => weekStart(Number(x.received_at)));
}
