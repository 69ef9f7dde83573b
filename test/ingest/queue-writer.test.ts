/**
 * The SQLite queue writer thread: rows (the queue's own file) and outcome counts (the main file)
 * committed and visible to the main connection once the promise resolves; a failed transaction
 * rejects only its batch; rows commit while the main file's write lock is held elsewhere; closing
 * is idempotent and refuses later writes.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hourStart } from "../../src/core/outcomes";
import type { Db } from "../../src/storage/db";
import { listOutcomes } from "../../src/storage/events/outcomes";
import { type QueueInsert, queueDepth, queueStore } from "../../src/storage/queue/queue";
import { queueWriterFor } from "../../src/storage/queue/writer";
import { openTestDb } from "../helpers/test-db";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const row = (body: string, projectId = 5): QueueInsert => ({
  projectId,
  keyId: 2,
  receivedAt: NOW,
  clientIp: "::1",
  kind: "envelope",
  body: Buffer.from(body),
});

describe("queue writer thread (SQLite file)", () => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb("sqlite"));
  });
  afterAll(async () => close());

  test("commits rows and counts together; a failing batch rejects alone; close is final", async () => {
    const writer = queueWriterFor(db);
    expect(writer).toBeDefined();
    if (!writer) return;
    const count = {
      projectId: 5,
      keyId: 2,
      hour: hourStart(NOW),
      category: "span",
      outcome: "filtered" as const,
      reason: "unsupported_item",
      quantity: 3,
    };
    await writer.write([row("a"), row("bb"), row("ccc")], [count]);
    expect(await queueDepth(db)).toBe(3);
    const bodies = await queueStore(db)
      .kysely.selectFrom("queue")
      .innerJoin("queue_bodies as b", "b.id", "queue.id")
      .select("b.body")
      .orderBy("queue.id")
      .execute();
    expect(bodies.map((b) => Buffer.from(b.body).toString())).toEqual(["a", "bb", "ccc"]);
    // NOT NULL violated → the whole batch rolls back (its counts too), and the writer goes on.
    await expect(writer.write([row("d"), row("e", null as unknown as number)], [count])).rejects.toThrow(/NOT NULL/);
    expect(await queueDepth(db)).toBe(3);
    await writer.write([], [count]);
    expect((await listOutcomes(db, { projectIds: [5], from: 0, to: NOW * 2 }))[0]?.quantity).toBe(6);
    await Promise.all([writer.close(), writer.close()]);
    await expect(writer.write([row("f")], [])).rejects.toThrow(/closed/);
  });

  test("batches in flight together, through reused buffers, store exactly their own bodies", async () => {
    const writer = queueWriterFor(db);
    if (!writer) throw new Error("no writer");
    const before = await queueDepth(db);
    // Bodies differ in every byte position that a stale or shared buffer would leak into; sizes
    // vary so a kept buffer is sometimes reused, sometimes too small, once over the kept maximum.
    const body = (batch: number, i: number, size: number) => Buffer.alloc(size, `${batch}.${i};`);
    const sizes = [3, 40_000, 200, 5 * 1024 * 1024, 10, 90_000, 1];
    const expected: string[] = [];
    const writes: Array<Promise<void>> = [];
    for (let round = 0; round < 3; round++) {
      // Three batches in flight at once, then the next round reuses what came back.
      const batches = sizes.slice(round * 2, round * 2 + 3).map((size, b) => {
        const rows = Array.from({ length: 4 }, (_, i) => row(body(round * 10 + b, i, size).toString()));
        expected.push(...rows.map((r) => r.body.toString()));
        return writer.write(rows, []);
      });
      writes.push(...batches);
      await Promise.all(batches);
    }
    await Promise.all(writes);
    const stored = await queueStore(db)
      .kysely.selectFrom("queue")
      .innerJoin("queue_bodies as b", "b.id", "queue.id")
      .select("b.body")
      .where("queue.id", ">", 0)
      .orderBy("queue.id")
      .execute();
    expect(stored.length).toBe(before + expected.length);
    expect(stored.slice(before).map((b) => Buffer.from(b.body).toString())).toEqual(expected);
    await writer.close();
  });

  test("rows commit while the digest holds the main file's write lock; counts wait for it", async () => {
    const writer = queueWriterFor(db);
    if (!writer) throw new Error("no writer");
    const before = await queueDepth(db);
    const main = db.sqlite as NonNullable<Db["sqlite"]>;
    // What the digest's transaction does to the main file: hold its one write lock.
    main.prepare("BEGIN IMMEDIATE").run();
    let countsStored = false;
    const counts = writer
      .write(
        [],
        [{ projectId: 6, keyId: 2, hour: hourStart(NOW), category: "error", outcome: "filtered" as const, reason: "x", quantity: 1 }],
      )
      .then(() => {
        countsStored = true;
      });
    try {
      // Resolves with the main file still locked: the queue is another file.
      await writer.write([row("while-locked")], []);
      expect(await queueDepth(db)).toBe(before + 1);
      expect(countsStored).toBe(false);
    } finally {
      main.prepare("COMMIT").run();
    }
    await counts;
    expect(countsStored).toBe(true);
    await writer.close();
  });

  test("in-memory and PostgreSQL databases write in place instead (no writer)", async () => {
    const { openDb } = await import("../../src/storage/db");
    const mem = openDb({ kind: "sqlite", file: ":memory:", synchronous: "NORMAL" });
    expect(queueWriterFor(mem)).toBeUndefined();
    await mem.close();
  });
});
