/**
 * Migration 0023 moves queued bodies into queue_bodies: rows an older version queued (and leased)
 * before the upgrade are still claimed with their bodies afterwards, on both databases.
 */
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Db, openDb } from "../../src/storage/db";
import { migrateToLatest } from "../../src/storage/migrate";
import { migrationsFor } from "../../src/storage/migrations/index.js";
import { claimBatch } from "../../src/storage/queue/queue";
import { createTestDatabase, dialects, migrateUpTo, type TestDatabase } from "../helpers/test-db";

describe.each(await dialects())("queue bodies migration on %s", (dialect) => {
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

  test("bodies queued before 0023 move with their rows and are claimed after it", async () => {
    const k = db.kysely as unknown as Kysely<unknown>;
    await migrateUpTo(db, "0022-alert-rule-releases");
    const bodies = ["first body", "second, larger body ".repeat(500)];
    for (const body of bodies)
      await sql`INSERT INTO queue (project_id, key_id, received_at, client_ip, kind, body, available_at, attempts)
                VALUES (1, 1, 1000, NULL, 'envelope', ${Buffer.from(body)}, 0, 0)`.execute(k);
    // Every migration from 0023-queue-bodies on, in order (the list grows with each release).
    expect(await migrateToLatest(db)).toEqual(Object.keys(migrationsFor(db.dialect)).filter((name) => name >= "0023-queue-bodies"));
    const claimed = await claimBatch(db, 5000, 10, 60_000);
    expect(claimed.map((c) => c.body.toString())).toEqual(bodies);
    await expect(sql`SELECT body FROM queue`.execute(k)).rejects.toThrow();
  });
});
