import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { claimBatch, deleteQueued, enqueueMany, FRESH_AVAILABLE_AT, type QueueInsert } from "../../src/storage/queue";
import { dialects, openTestDb } from "../helpers/test-db";

const NOW = Date.UTC(2026, 10, 24, 8, 0, 0);
const LEASE = 60_000;

function rows(n: number, bodyBytes = 64): QueueInsert[] {
  return Array.from({ length: n }, (_, i) => ({
    projectId: 1,
    keyId: 1,
    receivedAt: NOW,
    clientIp: null,
    kind: "envelope",
    body: Buffer.alloc(bodyBytes, 97 + (i % 26)),
  }));
}

async function clear(db: Db): Promise<void> {
  await db.kysely.deleteFrom("queue").execute();
  await db.kysely.deleteFrom("queue_bodies").execute();
}

describe.each(await dialects())("queue claims on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("claims fresh rows, expired leases and rows queued before FRESH_AVAILABLE_AT, oldest id first, each once per lease", async () => {
    await clear(db);
    // A row queued by an older version (available_at 0) must still be claimed.
    const old = await db.kysely
      .insertInto("queue")
      .values({
        project_id: 1,
        key_id: 1,
        received_at: NOW,
        client_ip: null,
        kind: "envelope",
        available_at: 0,
        attempts: 0,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db.kysely
      .insertInto("queue_bodies")
      .values({ id: Number(old.id), body: Buffer.from("old") })
      .execute();
    await enqueueMany(db, rows(5));
    const first = await claimBatch(db, NOW, 3, LEASE);
    expect(first.map((r) => r.body.toString())[0]).toBe("old");
    expect(first.every((r) => r.attempts === 1)).toBe(true);
    // Leased rows are not claimed again before their lease expires…
    const second = await claimBatch(db, NOW + 1, 10, LEASE);
    expect(second).toHaveLength(3);
    expect(second.map((r) => r.id).some((id) => first.some((f) => f.id === id))).toBe(false);
    expect(await claimBatch(db, NOW + 2, 10, LEASE)).toHaveLength(0);
    // …and come back, oldest first, once it has.
    const again = await claimBatch(db, NOW + LEASE, 4, LEASE);
    expect(again.map((r) => r.id)).toEqual(first.map((r) => r.id));
    expect(again.every((r) => r.attempts === 2)).toBe(true);
    await writeTx(db, (tx) =>
      deleteQueued(
        tx,
        [...first, ...second].map((r) => r.id),
      ),
    );
  });

  test("each row comes back with its own body, and deleting a row deletes its body", async () => {
    await clear(db);
    const distinct = (tag: string, n: number): QueueInsert[] =>
      Array.from({ length: n }, (_, i) => ({ ...rows(1)[0], body: Buffer.from(`${tag}-${i}-${"x".repeat(i * 37)}`) }) as QueueInsert);
    // Two group commits, the second larger: ids interleave with nothing, bodies must follow them.
    await enqueueMany(db, distinct("a", 3));
    await enqueueMany(db, distinct("b", 7));
    const claimed = await claimBatch(db, NOW, 100, LEASE);
    expect(claimed.map((r) => r.body.toString().split("-").slice(0, 2).join("-"))).toEqual([
      ...["a-0", "a-1", "a-2"],
      ...Array.from({ length: 7 }, (_, i) => `b-${i}`),
    ]);
    await writeTx(db, (tx) =>
      deleteQueued(
        tx,
        claimed.map((r) => r.id),
      ),
    );
    const left = await db.kysely
      .selectFrom("queue_bodies")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });

  test("a row whose body is missing is claimed with an empty body (dropped by the digest), not claimed forever", async () => {
    await clear(db);
    await enqueueMany(db, rows(2));
    const [first] = await db.kysely.selectFrom("queue").select("id").orderBy("id").execute();
    await db.kysely.deleteFrom("queue_bodies").where("id", "=", Number(first?.id)).execute();
    const claimed = await claimBatch(db, NOW, 10, LEASE);
    expect(claimed.map((r) => r.body.length)).toEqual([0, 64]);
  });

  test("new rows are born with the 6-byte FRESH_AVAILABLE_AT", async () => {
    await clear(db);
    await enqueueMany(db, rows(1));
    const row = await db.kysely.selectFrom("queue").select(["available_at", "attempts"]).executeTakeFirstOrThrow();
    expect(Number(row.available_at)).toBe(FRESH_AVAILABLE_AT);
    expect(Number(row.attempts)).toBe(0);
  });

  test.runIf(dialect === "sqlite")("a claim rewrites the lease in place, not the queued bodies (SQLite WAL frames)", async () => {
    await clear(db);
    const sqlite = db.sqlite as NonNullable<Db["sqlite"]>;
    // 20 bodies of 48 KB: 12+ pages each, 240+ pages if the claim rewrote the rows.
    await enqueueMany(db, rows(20, 48 * 1024));
    sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const claimed = await claimBatch(db, NOW, 20, LEASE);
    expect(claimed).toHaveLength(20);
    const [res] = sqlite.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
    expect(res?.log).toBeGreaterThan(0);
    expect(res?.log).toBeLessThan(20 * 3);
  });
});
