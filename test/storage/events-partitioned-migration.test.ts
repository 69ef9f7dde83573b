/**
 * Migration 0025 on PostgreSQL: an `events` table holding several weeks becomes a table
 * partitioned by week with every row, id and dedupe key kept; the id sequence carries on. On
 * SQLite it changes nothing.
 */
import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Db, openDb } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { encodePayload, getEvent, insertEvents, type NewEvent } from "../../src/storage/events/events";
import { DEFAULT_PARTITION, EVENT_PARTITION_MS, partitionName, weekStart } from "../../src/storage/events/partitions";
import { migrateToLatest } from "../../src/storage/migrate";
import { migrationsFor } from "../../src/storage/migrations/index.js";
import { createTestDatabase, dialects, migrateUpTo, type TestDatabase } from "../helpers/test-db";
import { hexId } from "../pipeline/helpers";

const NOW = Date.UTC(2026, 5, 1);

function newEvent(projectId: number, eventId: string, receivedAt: number): NewEvent {
  return {
    projectId,
    issueId: 1,
    eventId,
    receivedAt,
    timestamp: receivedAt,
    level: "error",
    platform: "javascript",
    release: null,
    environment: null,
    title: "Migrated",
    culprit: "",
    userKey: null,
    traceId: null,
    digest: null,
    payload: { message: eventId },
  };
}

function oldRow(e: NewEvent) {
  return {
    project_id: e.projectId,
    issue_id: e.issueId,
    event_id: e.eventId,
    received_at: e.receivedAt,
    timestamp: e.timestamp,
    level: e.level,
    platform: e.platform,
    release: e.release,
    environment: e.environment,
    title: e.title,
    culprit: e.culprit,
    user_key: e.userKey,
    trace_id: e.traceId,
    digest: e.digest,
    ...encoded(e.payload),
  };
}

function encoded(payload: unknown): { size: number; payload: Buffer } {
  const { blob, size } = encodePayload(payload);
  return { size, payload: blob };
}

interface Stored {
  id: number;
  project_id: number;
  event_id: string;
  received_at: number;
}

async function allRows(k: Kysely<unknown>): Promise<Stored[]> {
  const r = await sql<Stored>`SELECT id, project_id, event_id, received_at FROM events ORDER BY id`.execute(k);
  return r.rows.map((x) => ({
    id: Number(x.id),
    project_id: Number(x.project_id),
    event_id: x.event_id,
    received_at: Number(x.received_at),
  }));
}

describe.each(await dialects())("events partitioning migration on %s", (dialect) => {
  let info: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    info = await createTestDatabase(dialect);
    db = openDb(info.config);
  });
  afterAll(async () => {
    await db.close();
    await info.drop();
  });

  test("events of several weeks keep their rows, ids and dedupe; new ids continue the sequence", async () => {
    const k = db.kysely as unknown as Kysely<unknown>;
    await migrateUpTo(db, "0024-queue-body-lz4");
    // Two projects, six weeks, two events a week each; the same event id in both projects.
    const events: NewEvent[] = [];
    for (let w = 0; w < 6; w++) {
      for (const projectId of [1, 2]) {
        events.push(newEvent(projectId, hexId(`m:${w}:a`), NOW - w * EVENT_PARTITION_MS - 3600_000));
        events.push(newEvent(projectId, hexId(`m:${w}:b:${projectId}`), NOW - w * EVENT_PARTITION_MS - 7200_000));
      }
    }
    // Written as the schema before 0025 stores them (insertEvents already expects event_keys).
    await db.kysely.insertInto("events").values(events.map(oldRow)).execute();
    const before = await allRows(k);

    // Every migration from 0025-events-partitioned on, in order (the list grows with each release).
    expect(await migrateToLatest(db)).toEqual(Object.keys(migrationsFor(db.dialect)).filter((name) => name >= "0025-events-partitioned"));
    expect(await allRows(k)).toEqual(before);
    expect((await getEvent(db, 2, hexId("m:3:a")))?.event).toEqual({ message: hexId("m:3:a") });

    // Re-sent events are duplicates (also twice in one batch); a new one is stored with a later id (SQLite's AUTOINCREMENT
    // also spends ids on skipped rows; PostgreSQL's sequence only on stored ones).
    const late = NOW - 60_000;
    const again = [
      newEvent(1, hexId("m:0:a"), late),
      newEvent(2, hexId("m:5:b:2"), late),
      newEvent(1, hexId("m:new"), late),
      newEvent(1, hexId("m:new"), late),
    ];
    expect([...(await writeTx(db, (tx) => insertEvents(tx, again)))]).toEqual([`1:${hexId("m:new")}`]);
    const after = await allRows(k);
    expect(after).toHaveLength(before.length + 1);
    const added = after.at(-1) as Stored;
    expect(added.event_id).toBe(hexId("m:new"));
    expect(added.id).toBeGreaterThan(Math.max(...before.map((r) => r.id)));
    if (dialect === "sqlite") return;

    expect(added.id).toBe(Math.max(...before.map((r) => r.id)) + 1);
    const kind = await sql<{ relkind: string }>`SELECT relkind FROM pg_class WHERE oid = 'events'::regclass`.execute(k);
    expect(kind.rows[0]?.relkind).toBe("p");
    // Every row sits in its week's partition: DEFAULT is empty.
    const where = await sql<{ part: string; n: number }>`
      SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM events GROUP BY 1 ORDER BY 1`.execute(k);
    const expected = new Map<string, number>();
    for (const r of [...before, added]) {
      const name = partitionName(weekStart(r.received_at));
      expected.set(name, (expected.get(name) ?? 0) + 1);
    }
    expect(Object.fromEntries(where.rows.map((r) => [r.part, r.n]))).toEqual(Object.fromEntries(expected));
    expect(where.rows.some((r) => r.part === DEFAULT_PARTITION)).toBe(false);
    const keys = await sql<{ n: number }>`SELECT count(*)::int AS n FROM event_keys`.execute(k);
    expect(keys.rows[0]?.n).toBe(25);

    // 0028: every partition, DEFAULT included, keeps rows up to a page whole: an event whose
    // (incompressible) stored payload is 3 KB adds nothing to its partition's TOAST table.
    const options = await sql<{ part: string; opts: string[] | null }>`
      SELECT c.relname AS part, c.reloptions AS opts FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass`.execute(k);
    expect(options.rows.length).toBeGreaterThan(1);
    for (const r of options.rows) expect(r.opts, r.part).toContain("toast_tuple_target=8160");
    const big = { ...newEvent(1, hexId("m:big"), late), payload: { noise: randomBytes(3000).toString("base64") } };
    expect(encodePayload(big.payload).blob.length).toBeGreaterThan(3000);
    expect((await writeTx(db, (tx) => insertEvents(tx, [big]))).size).toBe(1);
    const toast = await sql<{ bytes: number }>`
      SELECT pg_relation_size(reltoastrelid)::int AS bytes FROM pg_class WHERE relname = ${partitionName(weekStart(late))}`.execute(k);
    expect(toast.rows[0]?.bytes).toBe(0);
    expect((await getEvent(db, 1, hexId("m:big")))?.event).toEqual(big.payload);
  });

  test("insertEvents: more than a chunk, repeats within and across batches; every stored row reads back whole", async () => {
    await migrateToLatest(db);
    const at = NOW - 120_000;
    const batch = Array.from({ length: 250 }, (_, i) => newEvent(3, hexId(`chunk:${i}`), at + i));
    const first = await writeTx(db, (tx) => insertEvents(tx, [...batch, batch[7] as NewEvent, batch[240] as NewEvent]));
    expect(first.size).toBe(250);
    const again = await writeTx(db, (tx) =>
      insertEvents(tx, [batch[0] as NewEvent, newEvent(3, hexId("chunk:new"), at), batch[249] as NewEvent]),
    );
    expect([...again]).toEqual([`3:${hexId("chunk:new")}`]);
    for (const i of [0, 1, 199, 200, 249]) {
      const e = await getEvent(db, 3, hexId(`chunk:${i}`));
      expect(e?.event).toEqual({ message: hexId(`chunk:${i}`) });
      expect(e?.receivedAt).toBe(at + i);
    }
    expect((await getEvent(db, 3, hexId("chunk:new")))?.event).toEqual({ message: hexId("chunk:new") });
  });
});
