/**
 * SQLite keeps the ingest queue in a file of its own (src/storage/queue/file.ts). The digest's
 * results and the rows' removal are then two commits in two files; these tests stop between them
 * (a real lock held on the queue file by another connection) and check that nothing is digested
 * twice, that `queue_done` is emptied again, that rows an older version queued in the main file
 * move over with their ids, and that a lost queue file never hands out an id `queue_done` names.
 */
import fs from "node:fs";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { digestBatch } from "../../src/pipeline/digest-batch";
import { type Db, openDb } from "../../src/storage/db";
import { migrateToLatest } from "../../src/storage/migrate";
import { queueFileOf } from "../../src/storage/queue/file";
import { claimBatch, enqueueMany, type QueueInsert, queueDepth, queueStore } from "../../src/storage/queue/queue";
import Database from "../../src/storage/sqlite-driver";
import { createTestDatabase, migrateUpTo, type TestDatabase } from "../helpers/test-db";
import { createProject, deps, drain, hexId } from "../pipeline/helpers";

const NOW = Date.UTC(2026, 10, 26, 9, 0, 0);
const LEASE = 60_000;

function storeRow(projectId: number, tag: string): QueueInsert {
  const event = { event_id: hexId(tag), message: `queue file ${tag}`, level: "error", platform: "node", timestamp: NOW / 1000 };
  return { projectId, keyId: 1, receivedAt: NOW, clientIp: null, kind: "store", body: Buffer.from(JSON.stringify(event)) };
}

async function count(db: Db, table: "events" | "queue_done"): Promise<number> {
  const row = await db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("the queue's own SQLite file", () => {
  let info: TestDatabase;
  let db: Db;
  beforeEach(async () => {
    info = await createTestDatabase("sqlite");
    db = openDb(info.config);
  });
  afterEach(async () => {
    await db.close();
    await info.drop();
  });

  test("sits beside the main file", async () => {
    await migrateToLatest(db);
    const file = info.config.kind === "sqlite" ? info.config.file : "";
    expect(queueFileOf(file)).toBe(file.replace(/\.db$/, ".queue.db"));
    expect(fs.existsSync(queueFileOf(file))).toBe(true);
    expect(queueFileOf("/data/errata")).toBe("/data/errata.queue");
  });

  test("results committed but rows not yet deleted (queue file locked): the next claim deletes them, nothing is digested twice", async () => {
    await migrateToLatest(db);
    const projectId = await createProject(db, "qfile");
    await enqueueMany(
      db,
      ["a", "b", "c"].map((t) => storeRow(projectId, t)),
    );
    const items = await claimBatch(db, NOW, 10, LEASE);
    // Another connection takes the queue file's write lock after the claim, and the digest does
    // not wait for it: its results commit, the rows stay.
    const queueFile = queueStore(db).sqlite?.name as string;
    const other = new Database(queueFile);
    other.pragma("busy_timeout = 0");
    queueStore(db).sqlite?.pragma("busy_timeout = 0");
    other.prepare("BEGIN IMMEDIATE").run();
    try {
      expect(await digestBatch(db, items, deps(NOW))).toMatchObject({ events: 3, failed: 0 });
    } finally {
      other.prepare("COMMIT").run();
      other.close();
      queueStore(db).sqlite?.pragma("busy_timeout = 5000");
    }
    expect(await queueDepth(db)).toBe(3);
    expect(await count(db, "queue_done")).toBe(3);

    // The leases expire: the rows are claimed again, found in queue_done, and deleted instead.
    expect(await drain(db, NOW + LEASE)).toMatchObject({ events: 0, duplicates: 0, failed: 0 });
    expect(await queueDepth(db)).toBe(0);
    expect(await count(db, "events")).toBe(3);

    // The next batch forgets those ids: queue_done keeps only the last batch's, until the next.
    await enqueueMany(db, [storeRow(projectId, "d")]);
    expect(await drain(db, NOW + LEASE)).toMatchObject({ events: 1 });
    expect(await count(db, "events")).toBe(4);
    expect(await count(db, "queue_done")).toBe(1);
  });

  test("rows an older version queued in the main file move with their ids and bodies; new ids continue above them", async () => {
    const k = db.kysely;
    await migrateUpTo(db, "0026-issue-release-seen");
    const projectId = await createProject(db, "upgrade");
    // As the version before the queue file wrote them: into the main file.
    const ids: number[] = [];
    for (const tag of ["old-1", "old-2"]) {
      const r = storeRow(projectId, tag);
      const row = await k
        .insertInto("queue")
        .values({
          project_id: r.projectId,
          key_id: r.keyId,
          received_at: r.receivedAt,
          client_ip: null,
          kind: r.kind,
          available_at: 0,
          attempts: 0,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await k
        .insertInto("queue_bodies")
        .values({ id: Number(row.id), body: r.body })
        .execute();
      ids.push(Number(row.id));
    }
    // A gap: the main file's sequence had gone further than its last row.
    await sql`UPDATE sqlite_sequence SET seq = 40 WHERE name = 'queue'`.execute(k);
    await migrateToLatest(db);

    const mainLeft = await k
      .selectFrom("queue")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(mainLeft.n)).toBe(0);
    const moved = await queueStore(db).kysely.selectFrom("queue").select("id").orderBy("id").execute();
    expect(moved.map((m) => Number(m.id))).toEqual(ids);
    await enqueueMany(db, [storeRow(projectId, "new")]);
    const all = await queueStore(db).kysely.selectFrom("queue").select("id").orderBy("id").execute();
    expect(Number(all.at(-1)?.id)).toBe(41);
    expect(await drain(db, NOW)).toMatchObject({ events: 3, failed: 0 });
    // Running the step again (a restart) moves nothing twice.
    await migrateToLatest(db);
    expect(await queueDepth(db)).toBe(0);
  });

  test("a queue file lost while queue_done names ids: the new file starts above them", async () => {
    await migrateToLatest(db);
    await db.kysely
      .insertInto("queue_done")
      .values([{ id: 7 }, { id: 500 }])
      .execute();
    const file = info.config.kind === "sqlite" ? info.config.file : "";
    await db.close();
    for (const f of [queueFileOf(file), `${queueFileOf(file)}-wal`, `${queueFileOf(file)}-shm`]) fs.rmSync(f, { force: true });
    db = openDb(info.config);
    await migrateToLatest(db);
    const projectId = await createProject(db, "lost");
    await enqueueMany(db, [storeRow(projectId, "after")]);
    const [row] = await queueStore(db).kysely.selectFrom("queue").select("id").execute();
    expect(Number(row?.id)).toBe(501);
    // Claimed and digested like any row (500 is not its id); the ids below it are swept away.
    expect(await drain(db, NOW)).toMatchObject({ events: 1 });
    const done = await db.kysely.selectFrom("queue_done").select("id").execute();
    expect(done.map((d) => Number(d.id))).toEqual([501]);
  });
});
