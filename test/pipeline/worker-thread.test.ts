import pino from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { startWorkerThread, workerEntry } from "../../src/pipeline/start-worker-thread";
import { type Db, openDb } from "../../src/storage/db";
import { getEvent } from "../../src/storage/events/events";
import { migrateToLatest } from "../../src/storage/migrate";
import { enqueueMany, queueDepth } from "../../src/storage/queue/queue";
import { createTestDatabase, type TestDatabase } from "../helpers/test-db";
import { createProject, hexId } from "./helpers";

// The threads need a database they can all open: a SQLite file (the default deployment).
describe("digest worker thread (SQLite file)", () => {
  let info: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    info = await createTestDatabase("sqlite");
    db = openDb(info.config);
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db.close();
    await info.drop();
  });

  test("dev/test entry is the tsx bootstrap next to the source", () => {
    expect(workerEntry().pathname).toMatch(/src\/pipeline\/worker-bootstrap\.mjs$/);
  });

  test("starts, digests an event enqueued by the main thread, stops cleanly", async () => {
    const projectId = await createProject(db, "thread");
    // An hour-long idle poll: once the thread is idle, only the wake message can get the event
    // digested within the test's timeout (no timing assertion: a slow machine only waits longer).
    const config = {
      ...loadConfig({ DATA_DIR: info.dataDir, LOG_LEVEL: "silent", WORKER_IDLE_POLL_MS: "3600000" }),
      database: info.config,
    };
    const handle = startWorkerThread(config, pino({ level: "silent" }));
    try {
      // Let the thread boot (tsx registration, DB open) and go idle before enqueueing.
      await new Promise((r) => setTimeout(r, 1500));
      const id = hexId("thread-event");
      await enqueueMany(db, [
        {
          projectId,
          keyId: 1,
          receivedAt: Date.now(),
          clientIp: null,
          kind: "store",
          body: Buffer.from(JSON.stringify({ event_id: id, message: "from main" })),
        },
      ]);
      handle.wake();
      let ev = await getEvent(db, projectId, id);
      while (!ev) {
        await new Promise((r) => setTimeout(r, 25));
        ev = await getEvent(db, projectId, id);
      }
      expect(ev?.title).toBe("from main");
      // The rows leave the queue after the event's transaction commits (on SQLite the queue is its
      // own file), so the event can be readable a moment before the queue is empty: wait for it.
      while ((await queueDepth(db)) !== 0) await new Promise((r) => setTimeout(r, 25));
      expect(await queueDepth(db)).toBe(0);
    } finally {
      await handle.stop();
    }
    // Stopping twice is harmless.
    await handle.stop();
  });

  test("a backlog starts a helper; every event is stored exactly once; the helper leaves when idle", async () => {
    const projectId = await createProject(db, "helpers");
    const n = 400;
    const ids = Array.from({ length: n }, (_, i) => hexId(`helper-${i}`));
    await enqueueMany(
      db,
      ids.map((id, i) => ({
        projectId,
        keyId: 1,
        receivedAt: Date.now(),
        clientIp: null,
        kind: "store" as const,
        body: Buffer.from(JSON.stringify({ event_id: id, message: `backlog ${i % 7}` })),
      })),
    );
    // Small claims: the primary's first two come back full, which is what asks for a helper.
    const config = {
      ...loadConfig({ DATA_DIR: info.dataDir, LOG_LEVEL: "silent", WORKER_BATCH_SIZE: "10", WORKER_THREADS: "2" }),
      database: info.config,
    };
    const handle = startWorkerThread(config, pino({ level: "silent" }));
    let sawHelper = false;
    try {
      handle.wake();
      while ((await queueDepth(db)) > 0) {
        sawHelper ||= handle.running() === 2;
        await new Promise((r) => setTimeout(r, 10));
      }
      sawHelper ||= handle.running() === 2;
      expect(sawHelper).toBe(true);
      const stored = await db.kysely.selectFrom("events").select(["event_id"]).where("project_id", "=", projectId).execute();
      expect(stored.map((r) => r.event_id).sort()).toEqual([...ids].sort());
      // Idle for a few seconds, the helper exits; the primary stays.
      while (handle.running() > 1) await new Promise((r) => setTimeout(r, 50));
      expect(handle.running()).toBe(1);
    } finally {
      await handle.stop();
    }
  }, 60_000);
});
