/**
 * The SQLite queue writer thread: rows and outcome counts committed together and visible to the
 * main connection once the promise resolves; a failed transaction rejects only its batch; closing
 * is idempotent and refuses later writes.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hourStart } from "../../src/core/outcomes";
import type { Db } from "../../src/storage/db";
import { listOutcomes } from "../../src/storage/outcomes";
import { type QueueInsert, queueDepth } from "../../src/storage/queue";
import { queueWriterFor } from "../../src/storage/queue-writer";
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
    const bodies = await db.kysely
      .selectFrom("queue")
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

  test("in-memory and PostgreSQL databases write in place instead (no writer)", async () => {
    const { openDb } = await import("../../src/storage/db");
    const mem = openDb({ kind: "sqlite", file: ":memory:", synchronous: "NORMAL" });
    expect(queueWriterFor(mem)).toBeUndefined();
    await mem.close();
  });
});
