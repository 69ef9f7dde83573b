/**
 * Retention on PostgreSQL's weekly `events` partitions: a week older than every project's
 * retention is dropped whole (survivors moved to DEFAULT, keys and attachments of the rest
 * deleted); a project keeping longer holds the week, and shorter projects' rows go row by row.
 * Each test has a database of its own: partitions, and the longest retention, are installation-wide.
 */
import { sql } from "kysely";
import pg from "pg";
import { describe, expect, test } from "vitest";
import { runRetention } from "../../src/pipeline/retention";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertAttachment } from "../../src/storage/events/attachments";
import { countEvents, getEvent, getLatestEvent } from "../../src/storage/events/events";
import {
  DEFAULT_PARTITION,
  detachEventPartition,
  EVENT_PARTITION_MS,
  ensureEventPartitions,
  guardOldEventPointers,
  partitionName,
  weekStart,
} from "../../src/storage/events/partitions";
import { getIssue } from "../../src/storage/issues/issues";
import { writeProjectSettings } from "../../src/storage/orgs/projects";
import { enqueueMany } from "../../src/storage/queue/queue";
import { eventually } from "../helpers/server";
import { openTestDb, postgresAvailable } from "../helpers/test-db";
import { createProject, drain, hexId } from "../pipeline/helpers";

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;
const NOW = Date.UTC(2026, 5, 1);
/** A week well past the default 90 days. */
const OLD_WEEK = weekStart(NOW - 16 * EVENT_PARTITION_MS);
const noPause = async () => {};
const options = { now: NOW, defaults: { days: 90, eventCap: 1_000_000 }, batchSize: 2, yieldBetween: noPause };
let seq = 0;

async function send(db: Db, projectId: number, message: string, receivedAt: number): Promise<string> {
  seq += 1;
  const id = hexId(`partition-retention:${seq}`);
  const body = {
    event_id: id,
    platform: "javascript",
    timestamp: receivedAt / 1000,
    exception: { values: [{ type: "E", value: message }] },
  };
  await enqueueMany(db, [{ projectId, keyId: 1, receivedAt, clientIp: null, kind: "store", body: Buffer.from(JSON.stringify(body)) }]);
  const r = await drain(db, receivedAt);
  if (r.events !== 1) throw new Error(`expected one stored event, got ${JSON.stringify(r)}`);
  return id;
}

/** A database whose weekly partitions cover the 20 weeks before NOW (the migration made only today's). */
async function partitionedDb(): Promise<Awaited<ReturnType<typeof openTestDb>>> {
  const t = await openTestDb("postgres");
  await ensureEventPartitions(t.db, NOW - 20 * EVENT_PARTITION_MS, 21);
  return t;
}

async function tableExists(db: Db, name: string): Promise<boolean> {
  const r = await sql<{ found: boolean }>`SELECT to_regclass(${name}) IS NOT NULL AS found`.execute(db.kysely);
  return r.rows[0]?.found === true;
}

async function isAttached(db: Db, name: string): Promise<boolean> {
  const r = await sql`SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE c.relname = ${name}`.execute(db.kysely);
  return r.rows.length > 0;
}

async function partitionOf(db: Db, projectId: number, eventId: string): Promise<string | undefined> {
  const r = await sql<{ part: string }>`
    SELECT tableoid::regclass::text AS part FROM events WHERE project_id = ${projectId} AND event_id = ${eventId}`.execute(db.kysely);
  return r.rows[0]?.part;
}

async function keysOf(db: Db, projectId: number): Promise<string[]> {
  const rows = await db.kysely.selectFrom("event_keys").select("event_id").where("project_id", "=", projectId).execute();
  return rows.map((r) => r.event_id).sort();
}

async function attach(db: Db, projectId: number, eventId: string): Promise<void> {
  await writeTx(db, (tx) =>
    insertAttachment(tx, {
      projectId,
      eventId,
      name: "log.txt",
      contentType: "text/plain",
      attachmentType: "event.attachment",
      data: Buffer.from("hi"),
      createdAt: NOW,
    }),
  );
}

async function setSettings(db: Db, projectId: number, settings: Record<string, unknown>): Promise<void> {
  await writeTx(db, (tx) => writeProjectSettings(tx, projectId, settings));
}

async function issueOf(db: Db, projectId: number, eventId: string): Promise<number> {
  return (await getEvent(db, projectId, eventId))?.issueId ?? -1;
}

describe.runIf(await postgresAvailable())("partitioned retention on postgres", () => {
  test("a week past every project's retention is dropped whole; first and latest events survive in DEFAULT", async () => {
    const { db, close } = await partitionedDb();
    try {
      const p = await createProject(db, "drop");
      // Issue A lives only in the old week; issue B starts there and goes on until yesterday.
      const a = [
        await send(db, p, "A", OLD_WEEK + HOUR),
        await send(db, p, "A", OLD_WEEK + 2 * HOUR),
        await send(db, p, "A", OLD_WEEK + 3 * HOUR),
      ];
      const b = [
        await send(db, p, "B", OLD_WEEK + 4 * HOUR),
        await send(db, p, "B", OLD_WEEK + 5 * HOUR),
        await send(db, p, "B", NOW - DAY),
      ];
      for (const eventId of [a[0], a[1], b[1]] as string[]) await attach(db, p, eventId);
      const issueA = await issueOf(db, p, a[0] as string);
      const beforeA = await getIssue(db, issueA);
      const old = partitionName(OLD_WEEK);
      expect(await partitionOf(db, p, a[1] as string)).toBe(old);

      const r = await runRetention(db, options);

      // The old weeks (13 of the 21 created end before NOW - 90 days) went as DROPs.
      expect(r.partitionsDropped).toBeGreaterThan(0);
      expect(r).toMatchObject({ expired: 2, evicted: 0 });
      expect(await tableExists(db, old)).toBe(false);
      expect(await isAttached(db, old)).toBe(false);
      // Survivors: A's first and latest, B's first, readable as ever, now in DEFAULT.
      for (const eventId of [a[0], a[2], b[0]] as string[]) expect(await partitionOf(db, p, eventId)).toBe(DEFAULT_PARTITION);
      expect((await getEvent(db, p, a[0] as string))?.event).toMatchObject({ event_id: a[0] });
      expect((await getLatestEvent(db, issueA))?.eventId).toBe(a[2]);
      expect(await getEvent(db, p, a[1] as string)).toBeUndefined();
      expect(await getEvent(db, p, b[1] as string)).toBeUndefined();
      expect(await countEvents(db, { projectId: p })).toBe(4);
      expect(await keysOf(db, p)).toEqual([a[0], a[2], b[0], b[2]].sort());
      const attachments = await db.kysely.selectFrom("attachments").select("event_id").where("project_id", "=", p).execute();
      expect(attachments.map((x) => x.event_id)).toEqual([a[0]]);
      expect(await getIssue(db, issueA)).toEqual(beforeA);
      // A second run finds nothing more to drop or delete.
      expect(await runRetention(db, options)).toMatchObject({ expired: 0, partitionsDropped: 0 });
    } finally {
      await close();
    }
  });

  test("a project keeping longer holds the week; a shorter project's old events go row by row", async () => {
    const { db, close } = await partitionedDb();
    try {
      const short = await createProject(db, "short");
      const long = await createProject(db, "long");
      await setSettings(db, long, { retentionDays: 200 });
      const s = [
        await send(db, short, "S", OLD_WEEK + HOUR),
        await send(db, short, "S", OLD_WEEK + 2 * HOUR),
        await send(db, short, "S", OLD_WEEK + 3 * HOUR),
        await send(db, short, "S", NOW - DAY),
      ];
      const l = [
        await send(db, long, "L", OLD_WEEK + HOUR),
        await send(db, long, "L", OLD_WEEK + 2 * HOUR),
        await send(db, long, "L", OLD_WEEK + 3 * HOUR),
      ];
      await attach(db, short, s[1] as string);

      const r = await runRetention(db, options);

      expect(r).toMatchObject({ partitionsDropped: 0, expired: 2 });
      expect(await isAttached(db, partitionName(OLD_WEEK))).toBe(true);
      expect(await keysOf(db, short)).toEqual([s[0], s[3]].sort());
      expect(await keysOf(db, long)).toEqual([...l].sort());
      expect(await countEvents(db, { projectId: long })).toBe(3);
      expect(await db.kysely.selectFrom("attachments").select("event_id").where("project_id", "=", short).execute()).toEqual([]);
    } finally {
      await close();
    }
  });

  test("the event cap still evicts on the partitioned table, keys with the rows", async () => {
    const { db, close } = await partitionedDb();
    try {
      const p = await createProject(db, "cap");
      await setSettings(db, p, { eventCap: 3 });
      const x = [];
      for (let i = 0; i < 6; i++) x.push(await send(db, p, "noisy", NOW - (6 - i) * DAY));

      expect(await runRetention(db, options)).toMatchObject({ evicted: 3, expired: 0 });
      expect(await keysOf(db, p)).toEqual([x[0], x[4], x[5]].sort());
      expect(await countEvents(db, { projectId: p })).toBe(3);
    } finally {
      await close();
    }
  });

  test("an unmerge that would make a doomed row of the week a first event waits for the detach, so no issue points at a dropped row", async () => {
    const { db, close } = await partitionedDb();
    try {
      const p = await createProject(db, "window");
      const a = [
        await send(db, p, "W", OLD_WEEK + HOUR),
        await send(db, p, "W", OLD_WEEK + 2 * HOUR),
        await send(db, p, "W", OLD_WEEK + 3 * HOUR),
      ];
      const middle = a[1] as string;
      const other = await issueOf(db, p, await send(db, p, "X", NOW - DAY));
      const old = partitionName(OLD_WEEK);
      // What the unmerge does to the week (src/server/issues/unmerge.ts): in one transaction,
      // guarded, the middle event (doomed: neither first nor latest) moves to another issue and
      // becomes its first event, if it is still in `events`.
      const unmergeLike = () =>
        db.kysely.transaction().execute(async (tx) => {
          await guardOldEventPointers(db, tx);
          const row = await tx
            .selectFrom("events")
            .select("id")
            .where("project_id", "=", p)
            .where("event_id", "=", middle)
            .executeTakeFirst();
          if (!row) return false;
          await tx.updateTable("events").set({ issue_id: other }).where("id", "=", Number(row.id)).execute();
          await tx.updateTable("issues").set({ first_event_id: middle }).where("id", "=", other).execute();
          return true;
        });
      let unmerge: Promise<boolean> | undefined;
      const kept = await detachEventPartition(db, old, {
        // Between the survivor scan and DETACH: the write starts and must wait for the detach.
        afterScan: async () => {
          unmerge = unmergeLike();
          await eventually(
            async () => {
              const r = await sql<{
                n: number;
              }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`.execute(db.kysely);
              return (r.rows[0]?.n ?? 0) > 0;
            },
            10_000,
            "the unmerge waiting for the detach's lock",
          );
        },
      });
      expect(kept).toBe(2);
      // It ran after the detach: the middle row had left `events`, so it moved nothing.
      expect(await unmerge).toBe(false);
      const dangling = await sql<{ id: number }>`
        SELECT i.id FROM issues i WHERE i.project_id = ${p} AND (
          (i.first_event_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM events e WHERE e.issue_id = i.id AND e.event_id = i.first_event_id))
          OR (i.last_event_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM events e WHERE e.issue_id = i.id AND e.event_id = i.last_event_id)))`.execute(
        db.kysely,
      );
      expect(dangling.rows).toEqual([]);
    } finally {
      await close();
    }
  });

  test("row by row too: retention waits for an unmerge in progress and keeps the event it made a first event", async () => {
    const { db, close } = await partitionedDb();
    try {
      const short = await createProject(db, "rowwise");
      const long = await createProject(db, "keeper");
      // A project keeping longer holds the week: the short project's old events go row by row.
      await setSettings(db, long, { retentionDays: 200 });
      const s = [
        await send(db, short, "S", OLD_WEEK + HOUR),
        await send(db, short, "S", OLD_WEEK + 2 * HOUR),
        await send(db, short, "S", OLD_WEEK + 3 * HOUR),
      ];
      const middle = s[1] as string;
      const other = await issueOf(db, short, await send(db, short, "Y", NOW - DAY));
      // An unmerge in progress: the middle event moved to another issue and became its first
      // event, not committed yet.
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let moved = () => {};
      const movedNow = new Promise<void>((r) => {
        moved = r;
      });
      const unmerge = db.kysely.transaction().execute(async (tx) => {
        await guardOldEventPointers(db, tx);
        await tx.updateTable("events").set({ issue_id: other }).where("project_id", "=", short).where("event_id", "=", middle).execute();
        await tx.updateTable("issues").set({ first_event_id: middle }).where("id", "=", other).execute();
        moved();
        await gate;
      });
      await movedNow;
      const retention = runRetention(db, options);
      try {
        await eventually(
          async () => {
            const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`.execute(
              db.kysely,
            );
            return (r.rows[0]?.n ?? 0) > 0;
          },
          10_000,
          "retention waiting for the unmerge's lock",
        );
      } finally {
        // Also when the wait failed: the test then fails on its assertions instead of hanging.
        release();
      }
      await unmerge;
      expect(await retention).toMatchObject({ expired: 0 });
      // The middle event is now the other issue's first: kept; the old issue keeps its two.
      expect(await getEvent(db, short, middle)).toBeDefined();
      expect(await countEvents(db, { projectId: short })).toBe(4);
    } finally {
      await close();
    }
  });

  test("a week detached by a run that stopped midway is cleared and dropped by the next run", async () => {
    const { db, close } = await partitionedDb();
    try {
      const p = await createProject(db, "resume");
      const e = [
        await send(db, p, "R", OLD_WEEK + HOUR),
        await send(db, p, "R", OLD_WEEK + 2 * HOUR),
        await send(db, p, "R", OLD_WEEK + 3 * HOUR),
      ];
      const old = partitionName(OLD_WEEK);
      expect(await detachEventPartition(db, old)).toBe(2);
      expect(await isAttached(db, old)).toBe(false);

      const r = await runRetention(db, options);

      expect(r.expired).toBe(1);
      expect(await tableExists(db, old)).toBe(false);
      expect(await keysOf(db, p)).toEqual([e[0], e[2]].sort());
    } finally {
      await close();
    }
  });

  test("a week whose detach cannot get its lock stays attached and whole; the next run drops it", async () => {
    const { db, close, info } = await partitionedDb();
    // Another session reading `events` in a long transaction: DETACH needs the table to itself.
    const reader = new pg.Client({ connectionString: info.databaseUrl });
    await reader.connect();
    try {
      const p = await createProject(db, "locked");
      const e = [
        await send(db, p, "K", OLD_WEEK + HOUR),
        await send(db, p, "K", OLD_WEEK + 2 * HOUR),
        await send(db, p, "K", OLD_WEEK + 3 * HOUR),
      ];
      const old = partitionName(OLD_WEEK);
      await reader.query("BEGIN");
      await reader.query("LOCK TABLE events IN ACCESS SHARE MODE");

      // Waits for the lock at most lock_timeout (5 s), then gives up without an error.
      expect(await detachEventPartition(db, old)).toBeNull();
      expect(await isAttached(db, old)).toBe(true);
      expect(await countEvents(db, { projectId: p })).toBe(3);

      await reader.query("COMMIT");
      const r = await runRetention(db, options);
      expect(r).toMatchObject({ expired: 1 });
      expect(r.partitionsDropped).toBeGreaterThan(0);
      expect(await tableExists(db, old)).toBe(false);
      expect(await keysOf(db, p)).toEqual([e[0], e[2]].sort());
    } finally {
      await reader.end();
      await close();
    }
  });
});
