/**
 * A worker that crashes mid-batch loses nothing (issue 3, "Durability"):
 *  1. a batch claimed and abandoned (the worker died right after claiming) is claimed again by the
 *     real worker thread once its lease expires, and stored exactly once;
 *  2. the real server with only the worker role is killed with SIGKILL while it digests a
 *     backlog; after a restart every queued event is stored exactly once.
 */
import pino from "pino";
import { afterAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { registry } from "../../src/metrics";
import { startWorkerThread } from "../../src/pipeline/start-worker-thread";
import { type Db, openDb } from "../../src/storage/db";
import { migrateToLatest } from "../../src/storage/migrate";
import { claimBatch, enqueueMany, type QueueInsert, queueDepth } from "../../src/storage/queue/queue";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-db";
import { createProject, hexId } from "../pipeline/helpers";

function rows(projectId: number, n: number, salt: string): { ids: string[]; rows: QueueInsert[] } {
  const ids = Array.from({ length: n }, (_, i) => hexId(`${salt}:${i}`));
  return {
    ids,
    rows: ids.map((id, i) => ({
      projectId,
      keyId: 1,
      receivedAt: Date.now(),
      clientIp: null,
      kind: "envelope" as const,
      body: Buffer.from(`{"event_id":"${id}"}\n{"type":"event"}\n${JSON.stringify({ message: `crash test ${i % 7}`, level: "error" })}`),
    })),
  };
}

async function storedOnce(db: Db, projectId: number, ids: string[]): Promise<void> {
  const found = await db.kysely.selectFrom("events").select("event_id").where("project_id", "=", projectId).execute();
  const set = new Set(found.map((r) => r.event_id));
  expect(ids.filter((id) => !set.has(id))).toEqual([]);
  expect(found).toHaveLength(ids.length);
  const sum = await db.kysely
    .selectFrom("issues")
    .select((eb) => eb.fn.sum<number>("event_count").as("n"))
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  expect(Number(sum?.n)).toBe(ids.length);
}

describe("worker crash mid-batch (SQLite file)", () => {
  let info: TestDatabase | undefined;
  let server: TestServer | undefined;
  let db: Db | undefined;
  afterAll(async () => {
    await server?.stop();
    await db?.close();
    await info?.drop();
  });

  test("an abandoned claim comes back after its lease; the worker thread stores it exactly once", async () => {
    info = await createTestDatabase("sqlite");
    db = openDb(info.config);
    await migrateToLatest(db);
    const projectId = await createProject(db, "abandoned");
    const { ids, rows: queued } = rows(projectId, 300, "abandoned");
    await enqueueMany(db, queued);
    const lease = 1500;
    // The "dead" worker: claims a batch and never finishes it.
    expect(await claimBatch(db, Date.now(), 120, lease)).toHaveLength(120);
    const config = {
      ...loadConfig({ DATA_DIR: info.dataDir, LOG_LEVEL: "silent", WORKER_LEASE_MS: String(lease), WORKER_IDLE_POLL_MS: "50" }),
      database: info.config,
    };
    const worker = startWorkerThread(config, pino({ level: "silent" }));
    try {
      const d = db;
      await eventually(async () => (await queueDepth(d)) === 0, 60_000, "the abandoned batch to be digested");
      await storedOnce(d, projectId, ids);
      // The worker thread's outcomes reach this (main) thread's /metrics, each event counted once.
      const metric = `errata_outcomes_total{project="${projectId}",category="error",outcome="accepted",reason="none"} ${ids.length}`;
      await eventually(async () => (await registry.getSingleMetricAsString("errata_outcomes_total")).includes(metric), 10_000, metric);
    } finally {
      await worker.stop();
    }
  });

  test("SIGKILL while the worker digests a backlog: after a restart everything is stored exactly once", async () => {
    const d = db as Db;
    const dataInfo = info as TestDatabase;
    const projectId = await createProject(d, "killed");
    const { ids, rows: queued } = rows(projectId, 3000, "killed");
    for (let i = 0; i < queued.length; i += 500) await enqueueMany(d, queued.slice(i, i + 500));
    const env = { ERRATA_ROLES: "worker", WORKER_LEASE_MS: "1500", LOG_LEVEL: "error" };
    server = await startServer({ db: dataInfo, env });
    const count = async () =>
      Number(
        (
          await d.kysely
            .selectFrom("events")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("project_id", "=", projectId)
            .executeTakeFirst()
        )?.n,
      );
    // Kill it once it is visibly mid-way: some events stored, the queue not yet empty.
    await eventually(async () => (await count()) > 0, 60_000, "the worker to start storing");
    await server.kill();
    expect(await queueDepth(d)).toBeGreaterThan(0);
    server = await startServer({ db: dataInfo, env });
    await eventually(async () => (await queueDepth(d)) === 0, 120_000, "the backlog to drain after the restart");
    await storedOnce(d, projectId, ids);
  });
});
