import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db.js";
import { isMigrated, migrateToLatest } from "../../src/storage/migrate.js";
import { claimBatch, enqueueMany, queueDepth } from "../../src/storage/queue/queue.js";
import { dialects, openTestDb } from "../helpers/test-db.js";

describe.each(await dialects())("storage on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("migrations apply once and report ready", async () => {
    expect(await isMigrated(db)).toBe(true);
    expect(await migrateToLatest(db)).toEqual([]);
  });

  test("queue: enqueue, claim with lease, reclaim after expiry", async () => {
    const body = Buffer.from('{}\n{"type":"event"}\n{"message":"x"}');
    await enqueueMany(db, [
      { projectId: 1, keyId: 1, receivedAt: 1000, clientIp: "127.0.0.1", kind: "envelope", body },
      { projectId: 1, keyId: 1, receivedAt: 1001, clientIp: null, kind: "store", body },
    ]);
    expect(await queueDepth(db)).toBe(2);
    const first = await claimBatch(db, 5000, 10, 60_000);
    expect(first.map((i) => i.kind)).toEqual(["envelope", "store"]);
    expect(first[0].body.equals(body)).toBe(true);
    expect(first[0].attempts).toBe(1);
    // Leased: nothing to claim until the lease expires (a crashed worker's batch comes back).
    expect(await claimBatch(db, 6000, 10, 60_000)).toHaveLength(0);
    const again = await claimBatch(db, 70_000, 10, 60_000);
    expect(again).toHaveLength(2);
    expect(again[0].attempts).toBe(2);
  });
});
