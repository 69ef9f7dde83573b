import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { claimBatch, deleteQueued, enqueueMany, FRESH_AVAILABLE_AT, type QueueInsert, queueStore } from "../../src/storage/queue/queue";
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
  await queueStore(db).kysely.deleteFrom("queue").execute();
  await queueStore(db).kysely.deleteFrom("queue_bodies").execute();
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
    const old = await queueStore(db)
      .kysely.insertInto("queue")
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
    await queueStore(db)
      .kysely.insertInto("queue_bodies")
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
    await writeTx(queueStore(db), (tx) =>
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
    await writeTx(queueStore(db), (tx) =>
      deleteQueued(
        tx,
        claimed.map((r) => r.id),
      ),
    );
    const left = await queueStore(db)
      .kysely.selectFrom("queue_bodies")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });

  test("every column and body lands on its own row: large bodies, a group commit carrying outcome counts, and more rows than one statement takes", async () => {
    await clear(db);
    // Over PostgreSQL's TOAST threshold (~2 KB), compressible and not, each row marked by its IP.
    const big = (i: number): QueueInsert => ({
      ...rows(1)[0],
      clientIp: `203.0.113.${i}`,
      kind: i % 2 === 0 ? "envelope" : "store",
      receivedAt: NOW + i,
      body: i % 2 === 0 ? Buffer.from(`${i}:${"compressible ".repeat(2000)}`) : Buffer.concat([Buffer.from(`${i}:`), randomBytes(9000)]),
    });
    const large = [0, 1, 2, 3].map(big);
    await enqueueMany(db, large);
    const outcome = { projectId: 1, keyId: 1, hour: NOW, category: "error", outcome: "accepted" as const, reason: "", quantity: 3 };
    // With outcome counts the rows go in inside the transaction that adds the counts.
    await enqueueMany(db, [4, 5].map(big), [outcome]);
    const claimed = await claimBatch(db, NOW, 100, LEASE);
    const sent = [...large, ...[4, 5].map(big)];
    expect(claimed).toHaveLength(6);
    for (const c of claimed) {
      const i = Number(c.clientIp?.split(".")[3]);
      expect(c.body.subarray(0, 2).toString()).toBe(`${i}:`);
      expect({ kind: c.kind, receivedAt: c.receivedAt, size: c.body.length }).toEqual({
        kind: sent[i]?.kind,
        receivedAt: NOW + i,
        size: sent[i]?.body.length,
      });
    }
    const counted = await db.kysely.selectFrom("outcomes").select("quantity").where("hour", "=", NOW).executeTakeFirstOrThrow();
    expect(Number(counted.quantity)).toBe(3);
    // More rows than one PostgreSQL statement takes (2,000): split, still one transaction.
    await clear(db);
    const many = Array.from({ length: 2500 }, (_, i) => ({ ...rows(1)[0], body: Buffer.from(`m-${i}`) }));
    await enqueueMany(db, many);
    const all = await claimBatch(db, NOW, 3000, LEASE);
    expect(all.map((r) => r.body.toString())).toEqual(many.map((r) => r.body.toString()));
  });

  test.runIf(dialect === "postgres")("queue bodies are compressed with lz4 on PostgreSQL (migration 0024)", async () => {
    const res = await sql<{ c: string }>`SELECT attcompression AS c FROM pg_attribute
      WHERE attrelid = 'queue_bodies'::regclass AND attname = 'body'`.execute(queueStore(db).kysely);
    expect(res.rows[0]?.c).toBe("l");
  });

  test("a row whose body is missing is claimed with an empty body (dropped by the digest), not claimed forever", async () => {
    await clear(db);
    await enqueueMany(db, rows(2));
    const [first] = await queueStore(db).kysely.selectFrom("queue").select("id").orderBy("id").execute();
    await queueStore(db).kysely.deleteFrom("queue_bodies").where("id", "=", Number(first?.id)).execute();
    const claimed = await claimBatch(db, NOW, 10, LEASE);
    expect(claimed.map((r) => r.body.length)).toEqual([0, 64]);
  });

  test("new rows are born with the 6-byte FRESH_AVAILABLE_AT", async () => {
    await clear(db);
    await enqueueMany(db, rows(1));
    const row = await queueStore(db).kysely.selectFrom("queue").select(["available_at", "attempts"]).executeTakeFirstOrThrow();
    expect(Number(row.available_at)).toBe(FRESH_AVAILABLE_AT);
    expect(Number(row.attempts)).toBe(0);
  });

  test.runIf(dialect === "sqlite")("a claim rewrites the lease in place, not the queued bodies (SQLite WAL frames)", async () => {
    await clear(db);
    const sqlite = queueStore(db).sqlite as NonNullable<Db["sqlite"]>;
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
